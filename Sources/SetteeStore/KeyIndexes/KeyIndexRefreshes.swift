internal import FoundationEssentials
internal import Synchronization

/// The refreshes of one database's key indexes: at most one at a time per index, and
/// the last failure of each until a refresh succeeds.
///
/// One at a time, as CouchDB runs one updater per view group: two refreshes of an index
/// racing could each write a version of a document the other had replaced (see
/// `KeyIndexPlan`), and would do the same work twice. A query that finds its index's
/// refresh running waits for it, and then has nothing left to do unless it asked for a
/// later sequence.
final class KeyIndexRefreshes: Sendable {
    private struct State {
        /// Signatures being refreshed, each with the refreshes waiting for it, first come first.
        var held: [String: [CheckedContinuation<Void, Never>]] = [:]
        var failures: [String: KeyIndexFailure] = [:]
    }

    private let state = Mutex(State())

    /// Waits until no other refresh holds any of `signatures`, then holds them all.
    /// Taken in sorted order, so two overlapping sets never wait on each other.
    func hold(_ signatures: [String]) async {
        for signature in Set(signatures).sorted() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let isFree = state.withLock { state -> Bool in
                    guard state.held[signature] != nil else {
                        state.held[signature] = []
                        return true
                    }
                    state.held[signature]?.append(continuation)
                    return false
                }
                if isFree { continuation.resume() }
            }
        }
    }

    /// Lets the next waiter of each of `signatures` in (it then holds the signature).
    func release(_ signatures: [String]) {
        for signature in Set(signatures) {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiters = state.held[signature], !waiters.isEmpty else {
                    state.held[signature] = nil
                    return nil
                }
                state.held[signature] = Array(waiters.dropFirst())
                return waiters[0]
            }
            next?.resume()
        }
    }

    /// Whether a refresh holds any index (the directory leaves such a database open).
    var isRefreshing: Bool { state.withLock { !$0.held.isEmpty } }

    func failure(_ signature: String) -> KeyIndexFailure? { state.withLock { $0.failures[signature] } }

    func record(_ failure: KeyIndexFailure?, for signatures: [String]) {
        state.withLock { state in
            for signature in signatures { state.failures[signature] = failure }
        }
    }
}

/// Why an index could not be brought up to date: it stays at `sequence`, its last
/// good state, and the next query that needs it tries again.
public struct KeyIndexFailure: Sendable {
    /// The store's error (`StoreError.sqlite`), or the one the index's `entries` threw
    /// (a view's map function stopped by its limits).
    public let error: any Error
    /// The update sequence the index still stands at.
    public let sequence: Int64
    /// When it failed (seconds since 1970, as `_active_tasks` counts).
    public let time: Int

    public init(error: any Error, sequence: Int64) {
        self.error = error
        self.sequence = sequence
        time = Int(Date().timeIntervalSince1970)
    }
}
