/// Whatever answers requests: the server hands each parsed request to it and
/// sends what it returns. It must not throw: errors become responses in it.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse
}
