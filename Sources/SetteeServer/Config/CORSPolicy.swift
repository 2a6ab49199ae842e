internal import SetteeReplicator
import SetteeHTTP

/// CORS as CouchDB's `chttpd_cors` does it (`[chttpd] enable_cors`, `[cors] origins,
/// credentials, methods, headers, exposed_headers, max_age`), so that PouchDB in a web
/// page can sync with Settee. Origins match exactly (case-sensitively), as CouchDB's.
struct CORSPolicy: Sendable {
    var enabled = false
    /// `*`, or the origins allowed, e.g. `https://app.example`.
    var origins: [String] = []
    var credentials = false
    var methods = Self.supportedMethods
    /// Lower-case.
    var headers = Self.supportedHeaders
    var exposedHeaders = Self.couchHeaders
    var maxAge = "600"

    static let supportedMethods = ["CONNECT", "COPY", "DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "TRACE"]
    static let supportedHeaders = [
        "accept", "accept-language", "authorization", "content-length", "content-range", "content-type", "destination",
        "expires", "if-match", "last-modified", "origin", "pragma", "x-couch-full-commit", "x-couch-id",
        "x-couch-persist", "x-couchdb-www-authenticate", "x-http-method-override", "x-requested-with",
        "x-couchdb-vhost-path",
    ]
    static let couchHeaders = ["accept-ranges", "etag", "server", "x-couch-request-id", "x-couch-update-newrev",
                               "x-couchdb-body-time"]
    static let simpleHeaders: Set<String> = ["cache-control", "content-language", "content-type", "expires",
                                             "last-modified", "pragma"]

    /// `a, b ,c` → `["a", "b", "c"]` (CouchDB's `split_list`).
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingBlanks() }.filter { !$0.isEmpty }
    }

    func allows(_ origin: String) -> Bool { origins.contains("*") || origins.contains(origin) }

    /// The answer to a preflight `OPTIONS`, or nil when it is not one this policy
    /// accepts (then the request is handled as any other, as in CouchDB).
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard enabled, request.method == "OPTIONS", let origin = request.headers["Origin"], allows(origin),
              let method = request.headers["Access-Control-Request-Method"], methods.contains(method) else { return nil }
        let requested = request.headers["Access-Control-Request-Headers"] ?? ""
        let names = requested.split(separator: ",").map { $0.trimmingBlanks().lowercased() }.filter { !$0.isEmpty }
        guard names.allSatisfy(headers.contains) else { return nil }
        var answer: HTTPHeaders = ["Access-Control-Allow-Origin": origin, "Access-Control-Max-Age": maxAge,
                                   "Access-Control-Allow-Methods": methods.joined(separator: ", ")]
        if credentials && origin != "*" { answer.add("Access-Control-Allow-Credentials", "true") }
        answer.add("Access-Control-Allow-Headers", requested)
        return HTTPResponse(status: 204, headers: answer)
    }

    /// Adds `Access-Control-Allow-Origin` (and `-Credentials`) and `-Expose-Headers` to a
    /// response for an allowed `Origin`: `content-type`, the simple headers it carries,
    /// then CouchDB's own (`chttpd_cors:maybe_apply_headers`).
    func decorate(_ response: inout HTTPResponse, origin: String) {
        guard enabled, allows(origin) else { return }
        var simple: [String] = []
        for field in response.headers {
            let name = field.name.lowercased()
            if name != "content-type", Self.simpleHeaders.contains(name), !simple.contains(name) { simple.append(name) }
        }
        response.headers.add("Access-Control-Allow-Origin", origin)
        if credentials && origin != "*" { response.headers.add("Access-Control-Allow-Credentials", "true") }
        response.headers.add("Access-Control-Expose-Headers", (["content-type"] + simple + exposedHeaders).joined(separator: ", "))
    }
}
