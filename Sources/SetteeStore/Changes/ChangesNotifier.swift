internal import Synchronization

/*
 ChangesNotifier: wakes `_changes` feeds (longpoll, continuous, eventsource) when
 their database commits, without any feed polling the database.

 State, all behind one `Mutex`:
   latest   the highest sequence the writer has reported (never decreases)
   waiters  id -> (after, continuation) for every suspended `wait(after:timeout:)`
   watchers continuations of `waitUntil(waiterCount:)` (tests and diagnostics)

 Invariants:
 1. No missed wake-ups. `wait` checks `latest > after` and registers its continuation
    in the same critical section, and `notify` raises `latest` and takes the waiters
    it wakes in one critical section. So a commit either happens before the check
    (the waiter returns at once) or after the registration (notify finds it); there
    is no window in between.
 2. Every continuation is resumed exactly once: whoever removes a waiter from
    `waiters` under the lock (notify, timeout, cancellation) is the only one to resume
    it. Ids are reserved before the timer starts and the registration runs; an end
    (timeout or cancellation) that arrives before registration is parked in `early`
    and the registration resumes with it. `reserved` and `early` are emptied by the
    registration, which always runs, so neither grows.
 3. Continuations are resumed outside the lock. Resuming only enqueues the waiting
    task, so `notify` costs O(waiters woken) and never waits for a feed to write its
    response; a slow or stuck subscriber cannot block the writer.
 4. A suspended waiter costs one dictionary entry (an id, a sequence and a
    continuation: a few dozen bytes) plus its own task. A timeout adds one child task
    that sleeps; it is cancelled as soon as the wait ends.
*/

/// Wakes the change feeds of one database when the writer commits.
///
/// One instance is shared by every feed of a database. The writer calls
/// ``notify(sequence:)`` after each commit; a feed that has sent everything up to
/// `seq` suspends in ``wait(after:timeout:)`` until a later sequence exists.
///
///     let seq = await notifier.wait(after: lastSent, timeout: .seconds(10))
///     // nil: the timeout passed (send a heartbeat or the final `last_seq`)
public final class ChangesNotifier: Sendable {
    private struct Waiter {
        var after: Int64
        var continuation: CheckedContinuation<Int64?, Never>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var latest: Int64
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        /// Ids handed out but not yet registered, and the results of ends (timeout,
        /// cancellation) that arrived in that gap. Both are emptied at registration.
        var reserved: Set<UInt64> = []
        var early: [UInt64: Int64?] = [:]
        var watchers: [Watcher] = []

        mutating func reserveID() -> UInt64 {
            nextID &+= 1
            reserved.insert(nextID)
            return nextID
        }

        /// Removes and returns the watchers satisfied by the current waiter count.
        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            guard !watchers.isEmpty else { return [] }
            let count = waiters.count
            let ready = watchers.filter { $0.count == count }.map(\.continuation)
            watchers.removeAll { $0.count == count }
            return ready
        }
    }

    private let state: Mutex<State>

    /// Creates a notifier whose current sequence is `sequence` (the database's
    /// `update_seq` when it is opened).
    public init(sequence: Int64 = 0) {
        state = Mutex(State(latest: sequence))
    }

    /// The highest sequence reported so far.
    public var sequence: Int64 { state.withLock { $0.latest } }

    /// How many feeds are suspended in ``wait(after:timeout:)`` right now.
    public var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Reports that the database committed up to `sequence`, waking every feed
    /// waiting for something after an earlier sequence.
    ///
    /// Call it after the commit, from any thread; it never suspends or blocks on a
    /// feed. A sequence not above the current one is ignored, so late or duplicate
    /// reports are harmless.
    public func notify(sequence: Int64) {
        let (woken, watchers) = state.withLock { s -> ([Waiter], [CheckedContinuation<Void, Never>]) in
            guard sequence > s.latest else { return ([], []) }
            s.latest = sequence
            var woken: [Waiter] = []
            // A feed may wait past the current sequence (e.g. `since` ahead of us);
            // it stays until the sequence passes what it asked for.
            for (id, waiter) in s.waiters where waiter.after < sequence {
                woken.append(waiter)
                s.waiters[id] = nil
            }
            return (woken, woken.isEmpty ? [] : s.takeSatisfiedWatchers())
        }
        for waiter in woken { waiter.continuation.resume(returning: sequence) }
        for watcher in watchers { watcher.resume() }
    }

    /// Waits until the database's sequence is greater than `seq` and returns it.
    ///
    /// Returns at once when the sequence is already past `seq`, which closes the race
    /// between a commit and a feed that is about to subscribe. Returns nil when
    /// `timeout` passes first, or when the calling task is cancelled (the waiter is
    /// removed at once; nothing is leaked). A nil `timeout` waits indefinitely.
    public func wait(after seq: Int64, timeout: Duration?) async -> Int64? {
        // Fast path without creating any task: the sequence already moved.
        let current = sequence
        if current > seq { return current }
        guard let timeout else { return await suspend(after: seq) }
        if timeout <= .zero { return nil }
        return await withTaskGroup(of: Void.self) { group in
            let id = state.withLock { $0.reserveID() }
            group.addTask {
                // Cancelled (and thus cut short) when the wait ends first.
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { self.end(id, with: nil) }
            }
            let result = await suspend(after: seq, id: id)
            group.cancelAll()
            return result
        }
    }

    /// Suspends until ``waiterCount`` equals `count`. For tests and diagnostics:
    /// lets a test know that N feeds are registered without sleeping.
    public func waitUntil(waiterCount count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isReady = state.withLock { s -> Bool in
                if s.waiters.count == count { return true }
                s.watchers.append(Watcher(count: count, continuation: continuation))
                return false
            }
            if isReady { continuation.resume() }
        }
    }

    // MARK: - Registration

    private func suspend(after seq: Int64) async -> Int64? {
        let id = state.withLock { $0.reserveID() }
        return await suspend(after: seq, id: id)
    }

    /// Registers waiter `id` (see invariants 1 and 2) and suspends until it is ended.
    private func suspend(after seq: Int64, id: UInt64) async -> Int64? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int64?, Never>) in
                enum Outcome { case registered([CheckedContinuation<Void, Never>]), ready(Int64?) }
                let outcome = state.withLock { s -> Outcome in
                    s.reserved.remove(id)
                    if let value = s.early.removeValue(forKey: id) { return .ready(value) }
                    if s.latest > seq { return .ready(s.latest) }
                    if Task.isCancelled { return .ready(nil) }
                    s.waiters[id] = Waiter(after: seq, continuation: continuation)
                    return .registered(s.takeSatisfiedWatchers())
                }
                switch outcome {
                case .ready(let value): continuation.resume(returning: value)
                case .registered(let watchers): for watcher in watchers { watcher.resume() }
                }
            }
        } onCancel: {
            end(id, with: nil)
        }
    }

    /// Removes waiter `id` if it is still registered and resumes it with `value`.
    private func end(_ id: UInt64, with value: Int64?) {
        let (waiter, watchers) = state.withLock { s -> (Waiter?, [CheckedContinuation<Void, Never>]) in
            guard let waiter = s.waiters.removeValue(forKey: id) else {
                // Ended before it registered (a timer or cancellation racing the
                // registration): leave the result for the registration to take.
                if s.reserved.contains(id), s.early[id] == nil { s.early[id] = .some(value) }
                return (nil, [])
            }
            return (waiter, s.takeSatisfiedWatchers())
        }
        waiter?.continuation.resume(returning: value)
        for watcher in watchers { watcher.resume() }
    }
}
