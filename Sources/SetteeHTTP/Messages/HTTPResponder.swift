/// Whatever answers requests: the server hands each parsed request to it and
/// sends what it returns. It must not throw: errors become responses in it.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// Whether a request with this method and target is light enough to be answered on
    /// the server's event-loop thread (`LoopJobs`): a few microseconds of work and a
    /// bounded answer, such as a document `GET` whose read runs on a store's own thread.
    /// Anything else runs on Swift's cooperative pool. Asked once a request, so keep it cheap.
    /// It must never block: the loop's thread serves every plain-HTTP connection.
    func isLight(method: String, target: String) -> Bool
}

extension HTTPResponder {
    /// By default every request runs on the pool.
    public func isLight(method: String, target: String) -> Bool { false }
}
