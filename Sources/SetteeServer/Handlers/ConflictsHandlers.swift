import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET /{db}/_conflicts`, a Settee extension: the documents in conflict, in id order, each
/// with its winning revision and its other live leaves (what `?conflicts=true` shows of one
/// document), read from the index the store keeps as writes land. Database and server
/// admins only: it lists documents members may not be allowed to find by other means.
///
///     {"total_rows": 2, "rows": [{"id": "a", "rev": "2-…", "conflicts": ["2-…"]}, …]}
///
/// A row the database's conflicts policy failed on (`ConflictResolver`) also says why,
/// in `policy_error`.
///
/// Paged as `_all_docs` is: `limit` (default 1,000) and `startkey` (a JSON string, inclusive).
enum ConflictsHandlers {
    static let defaultLimit = 1_000

    static func list(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        let limit = try context.query.nonNegativeInt("limit") ?? defaultLimit
        let start = try context.query.jsonString("startkey") ?? context.query.jsonString("start_key")
        let documents = try await database.conflictedDocuments(startKey: start, limit: limit)
        let failures = (database.conflictWatcher as? ConflictResolver)?.failures
        let rows: [JSONValue] = documents.map { document in
            var row: JSONObject = ["id": .string(document.id), "rev": .string(document.winner.description),
                                   "conflicts": .array(document.conflicts.map { .string($0.description) })]
            // Why the database's conflicts policy left it in conflict, when it failed on these leaves.
            if let reason = failures?.reason(id: document.id, leaves: [document.winner] + document.conflicts, in: database) {
                row.append("policy_error", .string(reason))
            }
            return .object(row)
        }
        return JSONResponse.ok(["total_rows": .int(try await database.conflictedDocumentCount()), "rows": .array(rows)])
    }
}
