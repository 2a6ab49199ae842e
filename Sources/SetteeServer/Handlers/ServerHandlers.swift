import Synchronization
import SetteeDocuments
import FoundationEssentials
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// Server-wide endpoints: `/`, `/_up`, `/_uuids`, `/_all_dbs`, `/_dbs_info`.
/// (CouchDB API Reference › Server.)
enum ServerHandlers {
    static func welcome(_ context: RequestContext) async throws -> HTTPResponse {
        var body: JSONObject = [
            "couchdb": "Welcome",
            "version": .string(SetteeVersion.couchDBVersion),
            "uuid": .string(context.node.configuration.uuid),
            "features": ["local_docs"],
            "vendor": ["name": "Settee", "version": .string(SetteeVersion.version)],
        ]
        // What a peer pins (`settee replicate --pin`), beside the vendor CouchDB clients read.
        if let tls = context.node.configuration.http.tls {
            var settee: JSONObject = ["tls_fingerprint": .string(tls.context.fingerprint)]
            if let port = context.node.boundTLSPort.withLock({ $0 }) { settee["tls_port"] = .int(port) }
            body["settee"] = .object(settee)
        }
        return JSONResponse.ok(.object(body))
    }

    /// `GET /_up`: what CouchDB 3.4.3 answers on a single node, `seeds` included
    /// (its documentation shows only `status`).
    static func up(_ context: RequestContext) async throws -> HTTPResponse {
        JSONResponse.ok(["status": "ok", "seeds": [:]])
    }

    /// `GET /_uuids?count=N`: CouchDB caps `count` at `[uuids] max_count` (1000 by default).
    static func uuids(_ context: RequestContext) async throws -> HTTPResponse {
        // chttpd_misc:handle_uuids_req/1's list_to_integer, and its words for anything else.
        let count = try context.query["count"].map { text in
            guard let count = QueryOptions.erlangInteger(text), count >= 0 else {
                throw CouchError.badRequest("count must be a positive integer")
            }
            return count
        } ?? 1
        guard count <= context.node.live.uuidsMaxCount.value else {
            throw CouchError(400, "bad_request", "count parameter too large")
        }
        let uuids = (0..<count).map { _ in JSONValue.string(context.node.live.uuids.next()) }
        return JSONResponse.make(status: 200, ["uuids": .array(uuids)],
                                 headers: ["ETag": "\"\(UUIDs.random())\"", "Cache-Control": "no-cache",
                                           // A date in the past on purpose, as CouchDB's.
                                           "Expires": "Mon, 01 Jan 1990 00:00:00 GMT", "Pragma": "no-cache"])
    }

    /// `GET /_all_dbs` with `startkey`, `endkey`, `limit`, `skip`, `descending`.
    static func allDatabases(_ context: RequestContext) async throws -> HTTPResponse {
        try requireAdminForListing(context)
        // Tagged as CouchDB tags it (the answer changes only when databases come and go).
        return EntityTag.respond(context, .array(try listedNames(context).map { .string($0) }))
    }

    /// `GET /_dbs_info`: `_all_dbs`' names and parameters, each with its info.
    static func databasesInfoList(_ context: RequestContext) async throws -> HTTPResponse {
        try requireAdminForListing(context)
        var rows: [JSONValue] = []
        for name in try listedNames(context) {
            guard let database = try await context.node.directory.open(name) else { continue }
            rows.append(["key": .string(name), "info": try await DatabaseHandlers.infoJSON(database, context: context)])
        }
        return EntityTag.respond(context, .array(rows))
    }

    /// `[chttpd] admin_only_all_dbs` (chttpd_auth_request `maybe_admin_only_dbs`).
    private static func requireAdminForListing(_ context: RequestContext) throws {
        if context.node.configuration.adminOnlyAllDatabases { try context.requireAdmin() }
    }

    /// The database names `startkey`, `endkey`, `limit`, `skip` and `descending` select.
    private static func listedNames(_ context: RequestContext) throws -> [String] {
        let query = context.query
        try query.checkViewParameters()
        var names = try context.node.directory.names()
        let descending = try query.bool("descending")
        if descending { names.reverse() }
        let start = try query.jsonString("startkey") ?? query.jsonString("start_key")
        let end = try query.jsonString("endkey") ?? query.jsonString("end_key")
        names = names.filter { name in
            let afterStart = start.map { descending ? name <= $0 : name >= $0 } ?? true
            let beforeEnd = end.map { descending ? name >= $0 : name <= $0 } ?? true
            return afterStart && beforeEnd
        }
        let skip = try query.nonNegativeInt("skip") ?? 0
        let limit = try query.nonNegativeInt("limit") ?? Int.max
        return Array(names.dropFirst(skip).prefix(limit))
    }

    /// `POST /_dbs_info` `{"keys":[...]}`: info per name, `{"key":..,"error":"not_found"}` for missing ones.
    static func databasesInfo(_ context: RequestContext) async throws -> HTTPResponse {
        try requireAdminForListing(context)
        let body = try await context.jsonBody().object()
        guard let keys = body["keys"]?.arrayValue else {
            throw CouchError.badRequest("`keys` member must exist.")
        }
        var rows: [JSONValue] = []
        for key in keys {
            guard let name = key.stringValue, let database = try await context.node.directory.open(name) else {
                rows.append(["key": key, "error": "not_found"])
                continue
            }
            let info = try await DatabaseHandlers.infoJSON(database, context: context)
            rows.append(["key": key, "info": info])
        }
        return JSONResponse.ok(.array(rows))
    }
}
