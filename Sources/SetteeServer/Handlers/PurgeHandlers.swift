import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_purge`, `GET /{db}/_purged_infos` and `GET`/`PUT /{db}/_purged_infos_limit`
/// (CouchDB API Reference › Databases › /{db}/_purge; chttpd_db.erl).
enum PurgeHandlers {
    /// `[purge] max_document_id_number` and `max_revisions_number`, CouchDB's defaults.
    static let maxDocuments = 100
    static let maxRevisions = 1000

    static func purge(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireAdmin()
        try MaintenanceHandlers.requireJSONContentType(context)
        let body = try await context.jsonBody(checkingContentType: false).value
        guard case .object(let members) = body else { throw CouchError.badRequest("Request body must be a JSON object") }
        var requests: [(id: String, revisions: [RevisionID])] = []
        for member in members {
            guard let list = member.value.arrayValue else { throw CouchError.badRequest("Invalid list of revisions") }
            let revisions = try list.map { item -> RevisionID in
                guard let text = item.stringValue, let rev = RevisionID(text) else {
                    throw CouchError.badRequest("Invalid rev format")
                }
                return rev
            }
            requests.append((member.key, revisions))
        }
        guard requests.count <= maxDocuments else { throw CouchError.badRequest("Exceeded maximum number of documents.") }
        guard requests.reduce(0, { $0 + $1.revisions.count }) <= maxRevisions else {
            throw CouchError.badRequest("Exceeded maximum number of revisions.")
        }
        let results = try await database.purge(requests)
        let purged = JSONObject(results.map { ($0.id, JSONValue.array($0.revisions.map { .string($0.description) })) })
        return JSONResponse.make(status: 201, ["purge_seq": .null, "purged": .object(purged)])
    }

    static func purgedInfos(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireAdmin()
        let infos = try await database.purgedInfos().map { info -> JSONValue in
            ["id": .string(info.id), "revs": .array(info.revisions.map { .string($0) })]
        }
        // fabric_db_purged_infos gathers the shards' infos into a set: a request purging the
        // same id and revs again is listed once (CouchDB 3.4.3, purge_test.exs neighbourhood).
        var seen = Set<JSONValue>()
        return JSONResponse.ok(["purged_infos": .array(infos.filter { seen.insert($0).inserted })])
    }

    /// Server admins only, reading too (CouchDB 3.4.3 answers 401 to anyone else).
    static func getLimit(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireAdmin()
        return JSONResponse.ok(.int(try await database.purgedInfosLimit()))
    }

    static func putLimit(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireAdmin()
        let limit = try await context.positiveIntegerBody(orThrow: "`purged_infos_limit` must be positive integer")
        try await database.setPurgedInfosLimit(limit)
        return JSONResponse.ok()
    }
}
