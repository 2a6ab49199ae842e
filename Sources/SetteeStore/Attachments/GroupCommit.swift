internal import Dispatch

/// Commits that arrive while one runs wait and go together in the next, as the database
/// writer's group commit does for documents (`Writer`): one transaction, one fsync for
/// them all. `commit` runs on a serial queue of its own, never on Swift's cooperative
/// pool, and no caller's thread waits: each suspends until its items are committed.
final class GroupCommit<Item: Sendable>: @unchecked Sendable {
    // @unchecked: `pending` and `isDraining` are touched only under `lock`.
    private let queue: DispatchQueue
    private let lock = Lock()
    private var pending: [(items: [Item], done: CheckedContinuation<Void, any Error>)] = []
    private var isDraining = false
    private let commit: @Sendable ([Item]) throws -> Void

    init(label: String, commit: @escaping @Sendable ([Item]) throws -> Void) {
        queue = DispatchQueue(label: label)
        self.commit = commit
    }

    /// Submissions waiting for the next commit (tests).
    var pendingCount: Int { lock.withLock { pending.count } }

    /// Returns once `items` were committed (perhaps with others', in one `commit` call);
    /// throws what that call threw.
    func submit(_ items: [Item]) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let mustDrain = lock.withLock {
                pending.append((items, done))
                defer { isDraining = true }
                return !isDraining
            }
            if mustDrain { queue.async { self.drain() } }
        }
    }

    private func drain() {
        while true {
            let batch = lock.withLock {
                defer { pending = [] }
                if pending.isEmpty { isDraining = false }
                return pending
            }
            guard !batch.isEmpty else { return }
            let outcome = Result { try commit(batch.flatMap(\.items)) }
            for member in batch { member.done.resume(with: outcome) }
        }
    }
}
