import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_resolve_conflicts`, a Settee extension (database and server admins):
/// resolves every document in conflict by the database's policy now, in batches, and
/// answers what it did. Documents the policy failed on before are tried again.
///
///     {"ok": true, "resolved": 12, "failed": [{"id": "q7", "reason": "..."}], "remaining": 1}
///
/// `remaining` counts the documents still in conflict afterwards (the failed ones,
/// design documents, and any a replication put in conflict meanwhile). 400
/// `bad_request` when no design document declares a policy.
enum ConflictResolutionHandlers {
    static func resolve(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        let outcome = try await resolveAll(in: database, by: resolver(of: database, context))
        return JSONResponse.ok(["ok": true, "resolved": .int(outcome.resolved),
                                "failed": .array(outcome.failed.map { ["id": .string($0.id), "reason": .string($0.reason)] }),
                                "remaining": .int(outcome.remaining)])
    }

    /// What resolving every document in conflict did.
    struct Outcome: Sendable {
        var resolved = 0
        var failed: [(id: String, reason: String)] = []
        /// Documents still in conflict afterwards.
        var remaining = 0
    }

    /// Resolves every document of `database` in conflict by its policy, now.
    /// - Throws: 400 `bad_request` when it has no policy; the store's errors.
    static func resolveAll(in database: Database, by resolver: ConflictResolver) async throws -> Outcome {
        guard try await resolver.policy(of: database) != nil else {
            throw CouchError.badRequest("No design document of this database declares a conflicts policy.")
        }
        var outcome = Outcome()
        var ids = try await database.conflictedIDs(limit: Int.max)
        // A stale resolution (a write landed meanwhile) gets one more pass with the new leaves.
        for pass in 0..<2 where !ids.isEmpty {
            var stale: [String] = []
            for start in stride(from: 0, to: ids.count, by: ConflictResolver.batchSize) {
                let report = await resolver.resolve(Array(ids[start..<min(start + ConflictResolver.batchSize, ids.count)]),
                                                    in: database, retryingFailures: pass == 0)
                outcome.resolved += report.resolved.count
                stale += report.stale
                outcome.failed += report.failed
            }
            ids = stale
        }
        outcome.remaining = try await database.conflictedDocumentCount()
        return outcome
    }

    /// The node's resolver (the store's watcher), or one for this request where the
    /// database was opened without one (in-process routers).
    static func resolver(of database: Database, _ context: RequestContext) -> ConflictResolver {
        database.conflictWatcher as? ConflictResolver ?? ConflictResolver(service: context.node.javaScript)
    }
}
