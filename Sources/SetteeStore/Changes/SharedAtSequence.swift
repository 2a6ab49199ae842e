internal import Synchronization

/*
 SharedAtSequence: work that depends only on a key and on the database as of a
 sequence, shared by every caller asking for the same key at the same sequence.

 When a commit wakes a thousand `_changes` feeds parked at the same seq, each
 asks for "the changes after N" (and then for the same bytes to send) at once;
 without sharing that is a thousand identical SQLite queries and encodings.

 Correctness: a caller passes the notifier's sequence as it starts. The notifier
 is advanced after a commit and before the write is answered, so a request that
 arrives after its own write was acknowledged sees a larger sequence and never
 joins, or is answered from, work that began before that commit. Work that began
 at sequence S sees every row up to S (and possibly later ones), so its result
 is a correct answer for any caller that saw S.

 Two ways to share:
   running  work in flight, joined by callers with the same key and sequence;
   kept     finished results of the current sequence that `keeps` accepted
            (small ones), for callers that arrive after the work finished.
            All of them are dropped when a caller brings a later sequence, so
            `kept` never holds more than one sequence's results, and at most
            `maxKept` of them.
 Failures are never kept: the next caller runs the work again.
*/

/// Shares the result of work keyed by `Key` among callers at the same sequence.
package final class SharedAtSequence<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct RunningKey: Hashable {
        let key: Key
        let sequence: Int64
    }

    private enum Source {
        case kept(Value)
        case running(Task<Value, any Error>, isOwner: Bool)
    }

    private struct State {
        var sequence: Int64 = .min
        var running: [RunningKey: Task<Value, any Error>] = [:]
        var kept: [Key: Value] = [:]
    }

    private let state = Mutex(State())
    private let keeps: @Sendable (Value) -> Bool
    private let maxKept: Int

    /// - Parameters:
    ///   - maxKept: how many finished results of one sequence are kept at most.
    ///   - keeps: whether a finished result is worth keeping (e.g. it is small).
    package init(maxKept: Int = 0, keeps: @escaping @Sendable (Value) -> Bool = { _ in false }) {
        self.maxKept = maxKept
        self.keeps = keeps
    }

    /// How many finished results are kept now (tests and diagnostics).
    package var keptCount: Int { state.withLock { $0.kept.count } }

    /// The value for `key` at `sequence`: kept, joined from work in flight, or from `work`.
    package func value(for key: Key, at sequence: Int64,
               work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let runningKey = RunningKey(key: key, sequence: sequence)
        let source = state.withLock { s -> Source in
            if sequence > s.sequence {
                s.sequence = sequence
                s.kept = [:]
            } else if sequence == s.sequence, let value = s.kept[key] {
                return .kept(value)
            }
            if let task = s.running[runningKey] { return .running(task, isOwner: false) }
            let task = Task { try await work() }
            s.running[runningKey] = task
            return .running(task, isOwner: true)
        }
        switch source {
        case .kept(let value):
            return value
        case .running(let task, let isOwner):
            guard isOwner else { return try await task.value }
            let result = await task.result
            let keep = (try? result.get()).map(keeps) ?? false
            state.withLock { s in
                s.running[runningKey] = nil
                if keep, sequence == s.sequence, s.kept.count < maxKept, case .success(let value) = result {
                    s.kept[key] = value
                }
            }
            return try result.get()
        }
    }
}
