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
        let signature = views.map(\.signature).sorted().joined()
        return JSONResponse.ok(["name": .string(name), "view_index": [
            "updates_pending": ["minimum": .int(pending), "preferred": .int(pending), "total": .int(pending)],
            "waiting_commit": false, "waiting_clients": 0, "updater_running": false,
            "update_seq": .number(JSONNumber(reached)), "sizes": ["file": 0, "external": 0, "active": 0],
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

    /// A design document's indexes live in the database's own file, which `_compact`
    /// vacuums: there is nothing else to compact, only the design document to check.
    static func compact(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        let id = "_design/" + (context.parameters[.ddoc] ?? "")
        _ = try await DesignDocuments.named(id, in: database)
        return JSONResponse.make(status: 202, ["ok": true])
    }
}
