public import SetteeHTTP
import SetteeStore

/// Placeholder until the routing table lands.
struct CouchRouter: HTTPResponder {
    let configuration: NodeConfiguration
    let directory: DatabaseDirectory
    func respond(to request: HTTPRequest) async -> HTTPResponse { HTTPResponse(status: 404) }
}
