internal import Synchronization

/*
 ChangesNotifier: wakes `_changes` feeds (longpoll, continuous, eventsource) when
 their database commits, without any feed polling the database.

 State, all behind one `Mutex` (see `ChangesNotifierState`):
   latest   the highest sequence the writer has reported (never decreases)
   waiters  id -> (after, deadline, isQueued, continuation) for every suspended wait,
            in slots an id indexes (`WaiterTable`: no hashing on the fan-out path)
   ready    ids of waiters that a commit has passed, in the order they are woken
   timer    the one task that ends waits whose deadline passed (+Timer.swift)
   watchers continuations of `waitUntil(waiterCount:)` (tests and diagnostics)

 Invariants:
 1. No missed wake-ups. `wait` checks `latest > after` and registers its continuation
    in the same critical section, and `notify` raises `latest` and queues the waiters
    it passes in one critical section. So a commit either happens before the check
    (the waiter returns at once) or after the registration (notify finds it).
 2. Every continuation is resumed exactly once: whoever removes a waiter from
    `waiters` under the lock (a wake-up batch, the timer, cancellation) is the only
    one to resume it. A queued id whose waiter is already gone is skipped.
 3. Continuations are resumed outside the lock, and `notify` resumes at most
    `wakeBatch` of them itself: the rest are resumed by a drain task that yields
    between batches. Resuming enqueues a feed's task on the shared executor, which
    is first in, first out; resuming a thousand at once put the writer's next
    request behind a thousand feed jobs (PUT p50 1 → 13 ms with 1,000 feeds). In
    batches, a request waits for at most about two batches, and a feed woken late
    reads every change committed meanwhile in one go. `notify` still never waits
    for a feed: a slow or stuck subscriber cannot block the writer.
 4. A suspended waiter costs one slot of `waiters` (a serial, a sequence, a deadline
    and a continuation: a few dozen bytes) plus its own task. Timeouts share one
    timer task per notifier that sleeps until the earliest deadline, instead of a
    sleeping child task (and a dispatch timer) per wait: a feed re-arms its
    heartbeat after every change, and those timers cost a fifth of the server's CPU
    when 1,000 feeds followed a burst of writes.
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
    /// How many waiters one step of a wake-up resumes before letting other work run.
    static let wakeBatch = 32

    let state: Mutex<ChangesNotifierState>

    /// Creates a notifier whose current sequence is `sequence` (the database's
    /// `update_seq` when it is opened).
    public init(sequence: Int64 = 0) {
        state = Mutex(ChangesNotifierState(latest: sequence))
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
    /// reports are harmless. The first ``wakeBatch`` feeds are resumed before it
    /// returns, the others by a task soon after (invariant 3).
    public func notify(sequence: Int64) {
        let (wake, startsDrain) = state.withLock { s -> (ChangesNotifierState.Wake, Bool) in
            guard sequence > s.latest else { return (.none, false) }
            s.latest = sequence
            s.queueWaiters(before: sequence)
            let wake = s.takeReady(atMost: Self.wakeBatch)
            let startsDrain = !s.ready.isEmpty && !s.isDraining
            if startsDrain { s.isDraining = true }
            return (wake, startsDrain)
        }
        wake.resume()
        if startsDrain { Task { await self.drainReady() } }
    }

    /// Waits until the database's sequence is greater than `seq` and returns it.
    ///
    /// Returns at once when the sequence is already past `seq`, which closes the race
    /// between a commit and a feed that is about to subscribe. Returns nil when
    /// `timeout` passes first, or when the calling task is cancelled (the waiter is
    /// removed at once; nothing is leaked). A nil `timeout` waits indefinitely.
    public func wait(after seq: Int64, timeout: Duration?) async -> Int64? {
        // The check and the reservation take the lock once: every feed passes here
        // after every write.
        enum Start { case passed(Int64), timedOut, reserved(ChangesNotifierState.ID) }
        let start = state.withLock { s -> Start in
            if s.latest > seq { return .passed(s.latest) }
            if let timeout, timeout <= .zero { return .timedOut }
            return .reserved(s.newID())
        }
        let id: ChangesNotifierState.ID
        switch start {
        case .passed(let current): return current
        case .timedOut: return nil
        case .reserved(let reserved): id = reserved
        }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        return await withTaskCancellationHandler {
            #if DEBUG
            await withCheckedContinuation { register(id, after: seq, deadline: deadline, $0) }
            #else
            await withUnsafeContinuation { register(id, after: seq, deadline: deadline, $0) }
            #endif
        } onCancel: {
            end(id)
        }
    }

    /// Suspends until ``waiterCount`` equals `count`. For tests and diagnostics:
    /// lets a test know that N feeds are registered without sleeping.
    public func waitUntil(waiterCount count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isReady = state.withLock { s -> Bool in
                if s.waiters.count == count { return true }
                s.watchers.append(.init(count: count, continuation: continuation))
                return false
            }
            if isReady { continuation.resume() }
        }
    }

    // MARK: - Registration and wake-ups

    /// Registers waiter `id` (invariant 1), or resumes it at once when the sequence
    /// already moved or the task was cancelled before it could register. Cancellation
    /// sets the task's flag before its handler runs, so checking the flag under the
    /// lock leaves no gap: a handler that found nothing to end is seen here.
    private func register(_ id: ChangesNotifierState.ID, after seq: Int64, deadline: ContinuousClock.Instant?,
                          _ continuation: ChangesNotifierState.WaitContinuation) {
        enum Outcome { case registered(ChangesNotifierState.Wake, arming: UInt64?), ready(Int64?) }
        let outcome = state.withLock { s -> Outcome in
            if s.latest > seq || Task.isCancelled {
                s.waiters.release(id)
                return .ready(s.latest > seq ? s.latest : nil)
            }
            s.waiters.register(id, .init(after: seq, deadline: deadline, continuation: continuation))
            let arming = deadline.flatMap { s.timer.arm(for: $0) }
            return .registered(.init(watchers: s.takeSatisfiedWatchers()), arming: arming)
        }
        switch outcome {
        case .ready(let value): continuation.resume(returning: value)
        case .registered(let wake, let arming):
            wake.resume()
            if let arming { startTimer(generation: arming) }
        }
    }

    /// Resumes queued waiters a batch at a time, yielding between batches (invariant 3).
    private func drainReady() async {
        while true {
            let (wake, isDone) = state.withLock { s -> (ChangesNotifierState.Wake, Bool) in
                let wake = s.takeReady(atMost: Self.wakeBatch)
                if s.ready.isEmpty { s.isDraining = false }
                return (wake, !s.isDraining)
            }
            wake.resume()
            if isDone { return }
            await Task.yield()
        }
    }

    /// Removes waiter `id` if it is still registered and resumes it with nil (cancellation).
    private func end(_ id: ChangesNotifierState.ID) {
        let wake = state.withLock { s -> ChangesNotifierState.Wake in
            guard let waiter = s.waiters.remove(id) else { return .none }
            return .init(ended: [waiter.continuation], watchers: s.takeSatisfiedWatchers())
        }
        wake.resume()
    }
}
