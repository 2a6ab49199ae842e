import SetteeHTTP
import SetteeJSON

/// An error as CouchDB answers it: a status and `{"error":..,"reason":..}`.
/// Handlers throw these (or lower layers' errors, mapped in `CouchError+Mapping`).
struct CouchError: Error, Sendable, Equatable {
    let status: Int
    let error: String
    let reason: String
    /// Extra response headers (e.g. `WWW-Authenticate` on 401, `Allow` on 405).
    var headers: [(String, String)] = []
    /// What design document code answered or failed with (a show's error, a stopped
    /// call, an overloaded JavaScript service): logged once a minute per client, not
    /// per request, as any database admin can cause it at will.
    var isFromJavaScript = false

    init(_ status: Int, _ error: String, _ reason: String, headers: [(String, String)] = []) {
        self.status = status
        self.error = error
        self.reason = reason
        self.headers = headers
    }

    static func == (a: CouchError, b: CouchError) -> Bool {
        a.status == b.status && a.error == b.error && a.reason == b.reason
    }

    var response: HTTPResponse {
        var response = JSONResponse.make(status: status, ["error": .string(error), "reason": .string(reason)])
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }

    /// An error design document JavaScript caused (`isFromJavaScript`).
    static func fromJavaScript(_ status: Int, _ error: String, _ reason: String) -> CouchError {
        var made = CouchError(status, error, reason)
        made.isFromJavaScript = true
        return made
    }

    static func badRequest(_ reason: String) -> CouchError { CouchError(400, "bad_request", reason) }
    static func queryParseError(_ reason: String) -> CouchError { CouchError(400, "query_parse_error", reason) }
    static func notFound(_ reason: String = "missing") -> CouchError { CouchError(404, "not_found", reason) }
    static let conflict = CouchError(409, "conflict", "Document update conflict.")
    static let databaseNotFound = CouchError(404, "not_found", "Database does not exist.")
    static let invalidJSON = CouchError(400, "bad_request", "invalid UTF-8 JSON")
    /// No `WWW-Authenticate`, as CouchDB sends none by default: a browser would answer
    /// one with its own password dialog over the page (or PouchDB app) that asked.
    /// `require_valid_user` adds it (LiveSettings); so does a client's
    /// `X-CouchDB-WWW-Authenticate` (CouchRouter), as CouchDB's chttpd:error_headers/4.
    static func unauthorized(_ reason: String) -> CouchError { CouchError(401, "unauthorized", reason) }
}
