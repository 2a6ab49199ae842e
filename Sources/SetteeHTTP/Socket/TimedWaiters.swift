internal import Synchronization

/*
 TimedWaiters: the waiters the event loop's sweep must look at, those that may have
 a wait with a deadline pending, instead of every registered fd. With 10,000 idle
 `_changes` feeds (no read or write pending on their sockets) the sweep copied and
 visited all 10,000 waiters twenty times a second: 17 % of the server's CPU while a
 change fanned out to them (perf, issue 45).

 The loop sleeps until the earliest pending deadline (`wakeAt`), not for a fixed tick:
 an idle device of a room woke twenty times a second for nothing, a third of its idle
 CPU with the sweep (perf, bench/RESULTS.md "The idle room's renamed services"). A
 waiter whose deadline comes more than `slack` before the loop's planned wake moves
 that wake earlier and writes the loop's eventfd (so a loop already asleep re-reads
 it); within `slack` it is expired at the planned wake, so timeouts stay accurate to
 one tick (50 ms) while a busy server's many later deadlines cost no wake-up at all.
 The sweep recomputes `wakeAt` from the deadlines still pending.

 A waiter adds itself after it has stored a wait with a deadline, outside its own
 lock. The sweep drops a waiter only while holding this set's lock and after seeing,
 under the waiter's lock, that no wait with a deadline is pending; a waiter that
 stores a new one meanwhile adds itself again after that (it waits for this lock), so
 none is dropped while armed, and its deadline is weighed against the `wakeAt` the
 sweep left. Lock order: this set, then a waiter; never the reverse.

 The eventfd is written under this set's lock, and `close()` (the loop's release, just
 before it closes its descriptors) takes that lock: a waiter outliving its loop never
 writes to a descriptor number that may have been reused by then.
*/

/// The waiters with a deadline possibly pending, and when the event loop must next sweep them.
final class TimedWaiters: Sendable {
    private struct State {
        var waiters: [ObjectIdentifier: IOWaiter] = [:]
        /// When the loop will next sweep; nil: no deadline pending, it sleeps until an event.
        var wakeAt: ContinuousClock.Instant?
        var isClosed = false
    }

    private let state = Mutex(State())
    /// Wakes the loop from `epoll_wait` (its eventfd).
    private let wakeLoop: @Sendable () -> Void
    /// How late a timeout may fire: a deadline this close after the planned wake waits for it.
    let slack: Duration

    init(slack: Duration, wakeLoop: @escaping @Sendable () -> Void) {
        self.slack = slack
        self.wakeLoop = wakeLoop
    }

    /// Called by a waiter after it stored a wait ending at `deadline` (not under its own lock).
    func add(_ waiter: IOWaiter, deadline: ContinuousClock.Instant) {
        state.withLock { s in
            s.waiters[ObjectIdentifier(waiter)] = waiter
            if let wakeAt = s.wakeAt, wakeAt <= deadline + slack { return }
            s.wakeAt = deadline
            if !s.isClosed { wakeLoop() }
        }
    }

    /// The `epoll_wait` timeout in milliseconds until the next sweep (rounded up), -1 for none.
    func timeoutMS(now: ContinuousClock.Instant) -> Int32 {
        guard let wakeAt = state.withLock({ $0.wakeAt }) else { return -1 }
        guard wakeAt > now else { return 0 }
        let (seconds, attoseconds) = (wakeAt - now).components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(ms, Int64(Int32.max)))
    }

    /// Sweeps if the planned wake has come.
    func sweepIfDue(now: ContinuousClock.Instant) {
        guard let wakeAt = state.withLock({ $0.wakeAt }), wakeAt <= now else { return }
        sweep(now: now)
    }

    /// Ends the waits whose deadline passed, forgets waiters with no deadline pending, and
    /// plans the next sweep at the earliest deadline still pending.
    func sweep(now: ContinuousClock.Instant) {
        let expiring = state.withLock { s -> [IOWaiter] in
            var expiring: [IOWaiter] = []
            var idle: [ObjectIdentifier] = []
            var earliest: ContinuousClock.Instant?
            for (id, waiter) in s.waiters {
                guard let deadline = waiter.pendingDeadline() else { idle.append(id); continue }
                if deadline <= now { expiring.append(waiter) } else { earliest = min(earliest ?? deadline, deadline) }
            }
            for id in idle { s.waiters.removeValue(forKey: id) }
            s.wakeAt = earliest
            return expiring
        }
        for waiter in expiring {
            waiter.expire(now: now)
            // Its other direction may still wait, with a later deadline.
            if let later = waiter.pendingDeadline() { add(waiter, deadline: later) }
        }
    }

    /// Forgets `waiter` (its fd is being closed).
    func remove(_ waiter: IOWaiter) {
        _ = state.withLock { $0.waiters.removeValue(forKey: ObjectIdentifier(waiter)) }
    }

    /// How many waiters the set holds (for tests).
    var count: Int { state.withLock { $0.waiters.count } }

    /// No wake-up after this (the loop's descriptors are about to be closed).
    func close() {
        state.withLock { $0.isClosed = true }
    }
}
