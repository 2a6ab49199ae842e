internal import Crypto
import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `GET /{db}/_design/{ddoc}/_info`, `POST /{db}/_view_cleanup` and
/// `POST /{db}/_compact/{ddoc}` (CouchDB API Reference › Design Documents, Databases).
enum DesignDocumentHandlers {
    static func info(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let name = context.parameters[.ddoc] ?? ""
        let id = "_design/" + name
        let body = try await DesignDocuments.named(id, in: database)
        let views = (body["views"]?.objectValue?.keys ?? []).compactMap {
            ViewDefinition.named($0, designDocumentID: id, body: body)
        }
        let current = try await database.updateSequence()
        var reached = current
        for view in views { reached = min(reached, try await database.indexSequence(view.signature)) }
        let pending = Int(current - reached)
        // 32 hex digits, as CouchDB's MD5 signature of the design document's views is written.
        let signature = Insecure.MD5.hash(data: Array(views.map(\.signature).sorted().joined().utf8))
            .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let sizes = try await database.indexSizes(Array(Set(views.map(\.signature))))
        return JSONResponse.ok(["name": .string(name), "view_index": [
            "updates_pending": ["minimum": .int(pending), "preferred": .int(pending), "total": .int(pending)],
            "waiting_commit": false, "waiting_clients": 0, "updater_running": false,
            "update_seq": .number(JSONNumber(reached)),
            "sizes": ["file": .number(JSONNumber(sizes.file)), "external": .number(JSONNumber(sizes.external)),
                      "active": .number(JSONNumber(sizes.active))],
            "signature": .string(signature), "purge_seq": 0,
            "language": .string(body["language"]?.stringValue ?? "javascript"), "compact_running": false,
            "collator_versions": [.string(UnicodeCollator.version)]]])
    }

    /// Drops the stored indexes no design document defines any more.
    static func viewCleanup(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        try await database.dropIndexes(keeping: try await ViewIndexes.liveSignatures(database))
        return JSONResponse.make(status: 202, ["ok": true])
    }

    /// Rewrites the design document's views' indexes packed (`Database.compactIndexes`),
    /// which their `_info` `sizes` show; done before the 202, so `compact_running` is
    /// false whenever a client looks (CouchDB compacts in the background).
    static func compact(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        try MaintenanceHandlers.requireJSONContentType(context)
        let id = "_design/" + (context.parameters[.ddoc] ?? "")
        let body = try await DesignDocuments.named(id, in: database)
        let views = (body["views"]?.objectValue?.keys ?? []).compactMap {
            ViewDefinition.named($0, designDocumentID: id, body: body)
        }
        try await database.compactIndexes(Array(Set(views.map(\.signature))))
        return JSONResponse.make(status: 202, ["ok": true])
    }
}
