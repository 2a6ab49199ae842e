internal import Synchronization

/*
 TimedWaiters: the waiters the event loop's sweep must look at, those that may have
 a wait with a deadline pending, instead of every registered fd. With 10,000 idle
 `_changes` feeds (no read or write pending on their sockets) the sweep copied and
 visited all 10,000 waiters twenty times a second: 17 % of the server's CPU while a
 change fanned out to them (perf, issue 45).

 A waiter adds itself after it has stored a wait with a deadline, outside its own
 lock. The sweep drops a waiter only while holding this set's lock and after seeing,
 under the waiter's lock, that no wait with a deadline is pending; a waiter that
 stores a new one meanwhile adds itself again after that (it waits for this lock), so
 none is dropped while armed. Lock order: this set, then a waiter; never the reverse.
*/

/// The waiters with a deadline possibly pending, for `EventLoop`'s sweep.
final class TimedWaiters: Sendable {
    private let waiters = Mutex<[ObjectIdentifier: IOWaiter]>([:])

    /// Called by a waiter after it stored a wait with a deadline (not under its own lock).
    func add(_ waiter: IOWaiter) {
        waiters.withLock { $0[ObjectIdentifier(waiter)] = waiter }
    }

    /// Ends the waits whose deadline passed and forgets waiters with no deadline pending.
    func sweep(now: ContinuousClock.Instant) {
        let expiring = waiters.withLock { waiters -> [IOWaiter] in
            var expiring: [IOWaiter] = []
            var idle: [ObjectIdentifier] = []
            for (id, waiter) in waiters {
                switch waiter.deadlineState(at: now) {
                case .none: idle.append(id)
                case .pending: break
                case .passed: expiring.append(waiter)
                }
            }
            for id in idle { waiters.removeValue(forKey: id) }
            return expiring
        }
        for waiter in expiring { waiter.expire(now: now) }
    }

    /// Forgets `waiter` (its fd is being closed).
    func remove(_ waiter: IOWaiter) {
        _ = waiters.withLock { $0.removeValue(forKey: ObjectIdentifier(waiter)) }
    }
}
