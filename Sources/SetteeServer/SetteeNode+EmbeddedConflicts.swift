package import SetteeJSON
package import SetteeStore

/// Conflict policies without HTTP, for the embedding library: the node's own resolver
/// (`ConflictResolver`, the store's `ConflictWatcher`), so a program's policy runs exactly
/// where a declared one does, after replicated writes and on demand.
package enum EmbeddedConflicts {
    /// Sets (nil: removes) the program's own policy of `database`, and queues every
    /// document in conflict there to be resolved by the policy now in effect.
    /// - Throws: `EmbeddedFailure` for a system database, or a database opened without
    ///   the node's resolver.
    package static func setPolicy(_ policy: NativeConflictPolicy?, for database: Database) throws {
        guard !database.name.hasPrefix("_") else {
            throw EmbeddedFailure(status: 400, error: "bad_request", reason: "System databases take no conflicts policy.")
        }
        guard let resolver = database.conflictWatcher as? ConflictResolver else {
            throw EmbeddedFailure(status: 500, error: "error", reason: "\(database.name) has no conflict resolver")
        }
        resolver.natives.set(policy, for: database.name)
        resolver.policyChanged(in: database)
    }

    /// Resolves every document of `database` in conflict by its policy, as `POST
    /// /{db}/_resolve_conflicts` does. - Returns: how many were resolved, those the policy
    /// failed on and why, and how many are still in conflict.
    /// - Throws: `EmbeddedFailure` (400 `bad_request`) when the database has no policy.
    package static func resolveAll(in database: Database, node: SetteeNode) async throws
        -> (resolved: Int, failed: [(id: String, reason: String)], remaining: Int) {
        let resolver = database.conflictWatcher as? ConflictResolver ?? ConflictResolver(service: node.javaScript)
        do {
            let outcome = try await ConflictResolutionHandlers.resolveAll(in: database, by: resolver)
            return (outcome.resolved, outcome.failed, outcome.remaining)
        } catch let error as CouchError {
            throw EmbeddedFailure(error)
        }
    }

    /// The policy `database`'s design documents declare: the design document's id and its
    /// `conflicts` member; nil when none declares one.
    package static func declaredPolicy(in database: Database) async throws -> (designDocument: String, declaration: JSONValue)? {
        guard let declared = try await DeclaredConflictPolicy.find(in: database),
              let designDocument = declared.designDocument,
              let declaration = designDocument.body["conflicts"] else { return nil }
        return (designDocument.id, declaration)
    }
}
