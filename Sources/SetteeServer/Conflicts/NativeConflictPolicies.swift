import SetteeStore
internal import Synchronization

/// The `NativeConflictPolicy` each database has, by database name: a node's, in memory,
/// set and removed by the program that embeds it. Keyed by name, not by the open
/// `Database` object, because the node may close an idle database and open it again
/// (`max_dbs_open`); system databases take none, as they take no declared policy.
final class NativeConflictPolicies: Sendable {
    private let policies = Mutex<[String: NativeConflictPolicy]>([:])

    func policy(of database: Database) -> NativeConflictPolicy? {
        guard !database.name.hasPrefix("_") else { return nil }
        return policies.withLock { $0[database.name] }
    }

    func set(_ policy: NativeConflictPolicy?, for name: String) {
        policies.withLock { $0[name] = policy }
    }
}
