import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// CouchDB's request object for design document functions — shows, lists, updates
/// and `_changes` filters (chttpd_external:json_req_obj): the database's info, a fresh
/// `uuid`, the document `id`, the method, the path three ways, the query (with `key`,
/// `startkey`, `endkey` and `descending` parsed as JSON), the headers, the body as
/// text ("undefined" when none was sent), the peer, a url-encoded form, the user and
/// the security object. Credentials never reach a function: `Authorization`, `Cookie`
/// and `X-Auth-CouchDB-Token` are dropped and `cookie` is empty, as CouchDB's default
/// `[chttpd] scrub_json_request = true` does.
enum RequestObject {
    static let scrubbedHeaders: Set<String> = ["authorization", "cookie", "x-auth-couchdb-token"]
    static let jsonQueryKeys: Set<String> = ["key", "startkey", "endkey", "descending"]

    /// - Parameter body: the request's body, when the handler read it (nil: none sent).
    static func make(_ context: RequestContext, _ database: Database, id: String?, body: [UInt8]?) async throws -> JSONValue {
        let request = context.request
        var query = JSONObject()
        for item in context.query.items {
            let parsed = jsonQueryKeys.contains(item.name) ? try? JSONReader.parse(Array(item.value.utf8)) : nil
            query[item.name] = parsed ?? .string(item.value)
        }
        var headers = JSONObject()
        for field in request.headers where !scrubbedHeaders.contains(field.name.lowercased()) {
            headers[field.name] = .string(field.value)
        }
        let bodyText = body.map { String(decoding: $0, as: UTF8.self) }
        var form = JSONObject()
        if let bodyText, request.method == "POST" || request.method == "PUT",
           (request.headers["Content-Type"] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded") {
            for pair in bodyText.split(separator: "&") {
                // Kept empty: "=" is the name "" with the value "" (mochiweb_util:parse_qs), not no parts at all.
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = PercentDecoding.decode(parts[0], plusAsSpace: true) ?? String(parts[0])
                let value = parts.count > 1 ? PercentDecoding.decode(parts[1], plusAsSpace: true) ?? String(parts[1]) : ""
                form[name] = .string(value)
            }
        }
        let security = (try? JSONReader.parse(try await database.security())) ?? [:]
        return [
            "info": try await DatabaseHandlers.infoJSON(database, context: context),
            "uuid": .string(UUIDs.random()),
            "id": id.map { .string($0) } ?? .null,
            "method": .string(request.method),
            "requested_path": .array(segments(request.target)),
            "path": .array(segments(request.rawPath)),
            "raw_path": .string(request.target),
            "query": .object(query),
            "headers": .object(headers),
            "body": .string(bodyText ?? "undefined"),
            "peer": .string(peer(request.remoteAddress)),
            "form": .object(form),
            "cookie": [:],
            "userCtx": ["db": .string(database.name), "name": context.user.name.map { .string($0) } ?? .null,
                        "roles": .array(context.user.roles.map { .string($0) })],
            "secObj": security,
        ]
    }

    /// The request's body as a design function sees it: nil when the client sent none.
    static func body(_ context: RequestContext) async throws -> [UInt8]? {
        let headers = context.request.headers
        guard headers["Content-Length"] != nil || headers["Transfer-Encoding"] != nil else { return nil }
        return try await context.request.body.collect(upTo: context.node.configuration.http.limits.maxBodyBytes)
    }

    /// `/db/_design/d?x=1` → `["db", "_design", "d?x=1"]`, each decoded (CouchDB's
    /// `requested_path` keeps the query in its last part, as here).
    private static func segments(_ path: some StringProtocol) -> [JSONValue] {
        path.split(separator: "/").map { .string(PercentDecoding.decode($0, plusAsSpace: false) ?? String($0)) }
    }

    /// `127.0.0.1:53122` → `127.0.0.1`, `[::1]:5112` → `::1`.
    private static func peer(_ address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }
}
