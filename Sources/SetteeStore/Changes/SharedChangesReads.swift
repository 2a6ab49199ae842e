internal import Synchronization

/// Lets concurrent `_changes` reads that would return the same rows share one
/// SQLite query. When a write wakes a thousand feeds parked at the same seq,
/// each asks for "the changes after N" at once; without sharing that is a
/// thousand identical queries queued on a few reader connections.
///
/// Correctness: the key includes the notifier's sequence when the read began.
/// The notifier is advanced after a commit and before the write is answered, so
/// a request that arrives after its own write was acknowledged sees a larger
/// sequence and never joins a query that started before that commit.
final class SharedChangesReads: Sendable {
    struct Key: Hashable {
        let since: Int64
        let limit: Int?
        let sequence: Int64
    }

    private let inFlight = Mutex<[Key: Task<[Change], any Error>]>([:])

    /// The rows for `key`: from a query already running for it, or from `query`.
    func read(_ key: Key, query: @escaping @Sendable () async throws -> [Change]) async throws -> [Change] {
        let (task, isOwner) = inFlight.withLock { running -> (Task<[Change], any Error>, Bool) in
            if let task = running[key] { return (task, false) }
            let task = Task { try await query() }
            running[key] = task
            return (task, true)
        }
        defer { if isOwner { inFlight.withLock { _ = $0.removeValue(forKey: key) } } }
        return try await task.value
    }
}
