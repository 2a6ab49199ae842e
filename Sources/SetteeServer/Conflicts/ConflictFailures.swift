import SetteeStore
internal import Synchronization

/// The documents a database's conflict policy failed on, each with the leaves and the
/// policy revision it failed with: the same attempt is not made again by itself (no
/// loop, one log line), and `_conflicts` and `_active_tasks` say why the conflict stays.
/// Kept in memory: after a restart each is tried once more, and fails once more.
final class ConflictFailures: Sendable {
    /// One document's leaves under one policy revision.
    struct Attempt: Sendable, Equatable {
        let id: String
        let leaves: [RevisionID]
        let policyRevision: String

        init(document: StoredDocument, policy: DeclaredConflictPolicy) {
            id = document.id
            leaves = document.tree.winner.map { [$0.rev] + document.tree.conflicts } ?? []
            policyRevision = policy.origin
        }
    }

    private struct Failure {
        let attempt: Attempt
        let reason: String
    }

    /// Per database object, per document id.
    private let failures = Mutex<[ObjectIdentifier: (database: WeakDatabase, byID: [String: Failure])]>([:])

    /// Records a failure. - Returns: whether it is new (not the same attempt failing again).
    func record(_ attempt: Attempt, reason: String, in database: Database) -> Bool {
        failures.withLock { all in
            let key = ObjectIdentifier(database)
            var entry = all[key].flatMap { $0.database.database === database ? $0 : nil }
                ?? (database: WeakDatabase(database), byID: [:])
            let isNew = entry.byID[attempt.id]?.attempt != attempt
            entry.byID[attempt.id] = Failure(attempt: attempt, reason: reason)
            all = all.filter { $0.value.database.database != nil }
            all[key] = entry
            return isNew
        }
    }

    func hasFailed(_ attempt: Attempt, in database: Database) -> Bool {
        entry(database)?[attempt.id]?.attempt == attempt
    }

    func clear(_ id: String, in database: Database) {
        failures.withLock { all in _ = all[ObjectIdentifier(database)]?.byID.removeValue(forKey: id) }
    }

    /// Why the policy failed on document `id` with `leaves` (the winner first), if it did.
    func reason(id: String, leaves: [RevisionID], in database: Database) -> String? {
        guard let failure = entry(database)?[id], failure.attempt.leaves == leaves else { return nil }
        return failure.reason
    }

    /// One line for `_active_tasks`, nil when the policy failed on nothing.
    func summary(of database: Database) -> String? {
        guard let byID = entry(database), let first = byID.keys.min(), let failure = byID[first] else { return nil }
        return "the conflicts policy failed on \(byID.count) document(s), left in conflict; "
            + "first \(first): \(failure.reason)"
    }

    private func entry(_ database: Database) -> [String: Failure]? {
        failures.withLock { all in
            guard let entry = all[ObjectIdentifier(database)], entry.database.database === database else { return nil }
            return entry.byID
        }
    }
}

/// A database held weakly: a deleted database's failures go with it.
struct WeakDatabase: @unchecked Sendable {
    // @unchecked: a weak reference to a Sendable class, read and written only under the lock.
    weak var database: Database?

    init(_ database: Database) { self.database = database }
}
