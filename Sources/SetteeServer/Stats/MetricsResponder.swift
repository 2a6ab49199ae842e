import SetteeHTTP

/// CouchDB's `[prometheus] additional_port`: a plain-HTTP listener of its own that
/// answers `GET /_node/_local/_prometheus` (and `/metrics`) without authentication, for
/// a scraper that should hold no admin password. Nothing else is served there.
struct MetricsResponder: HTTPResponder {
    let node: NodeState

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let path = request.rawPath
        guard path == "/_node/_local/_prometheus" || path == "/metrics" else {
            return HTTPResponse(status: 404, headers: ["Content-Type": "text/plain"], body: .bytes(Array("not found\n".utf8)))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: ["Allow": "GET"])
        }
        return StatsHandlers.prometheus(node)
    }
}
