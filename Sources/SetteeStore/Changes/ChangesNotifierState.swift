/// The state of a ``ChangesNotifier``, kept behind its mutex. Every method runs
/// under the lock and only moves entries around; what must be resumed comes back
/// as a `Wake` for the caller to resume after unlocking (the notifier's invariant 3).
struct ChangesNotifierState {
    #if DEBUG
    /// Checked where tests run: a second resume of one wait traps (invariant 2 of the notifier).
    typealias WaitContinuation = CheckedContinuation<Int64?, Never>
    #else
    /// Unchecked in release: a checked continuation allocates a box per wait, and every
    /// feed waits again after every write. Invariant 2 (one resume each) is what the
    /// check would catch; the debug build's tests exercise it.
    typealias WaitContinuation = UnsafeContinuation<Int64?, Never>
    #endif

    struct Waiter {
        var after: Int64
        var deadline: ContinuousClock.Instant?
        /// In `ready`: a commit passed it and a wake-up batch will resume it.
        var isQueued = false
        var continuation: WaitContinuation
    }

    struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    /// Continuations taken out under the lock, to resume once it is released.
    struct Wake {
        static let none = Wake()
        var sequence: Int64 = 0
        /// Resumed with `sequence`.
        var woken: [WaitContinuation] = []
        /// Resumed with nil (timeout or cancellation).
        var ended: [WaitContinuation] = []
        var watchers: [CheckedContinuation<Void, Never>] = []

        func resume() {
            for continuation in woken { continuation.resume(returning: sequence) }
            for continuation in ended { continuation.resume(returning: nil) }
            for watcher in watchers { watcher.resume() }
        }
    }

    typealias ID = WaiterTable<Waiter>.ID

    var latest: Int64
    var waiters = WaiterTable<Waiter>()
    /// Queued ids, first to wake first (a slice, so popping the front does not shift the rest).
    var ready: ArraySlice<ID> = []
    /// A drain task is resuming `ready` batch by batch.
    var isDraining = false
    var timer = DeadlineTimerState()
    var watchers: [Watcher] = []

    init(latest: Int64) { self.latest = latest }

    /// An id for a wait about to register (`WaiterTable.reserve`).
    mutating func newID() -> ID { waiters.reserve() }

    /// Queues every waiter that `sequence` passes and that is not queued yet.
    /// A feed may wait past the current sequence (`since` ahead of it); it stays
    /// until the sequence passes what it asked for.
    mutating func queueWaiters(before sequence: Int64) {
        let passed = waiters.select { waiter in
            guard waiter.after < sequence, !waiter.isQueued else { return false }
            waiter.isQueued = true
            return true
        }
        if ready.isEmpty { ready = ArraySlice(passed) } else { ready.append(contentsOf: passed) }
    }

    /// Takes up to `count` queued waiters out of `waiters`, to resume with `latest`.
    mutating func takeReady(atMost count: Int) -> Wake {
        var wake = Wake(sequence: latest)
        while wake.woken.count < count, let id = ready.popFirst() {
            // Gone already when the timer or a cancellation ended it first.
            if let waiter = waiters.remove(id) { wake.woken.append(waiter.continuation) }
        }
        if ready.isEmpty { ready = [] }  // drop the consumed storage
        if !wake.woken.isEmpty { wake.watchers = takeSatisfiedWatchers() }
        return wake
    }

    /// Takes the unqueued waiters whose deadline is at or before `now`, and re-targets
    /// the timer at the earliest deadline left. Queued waiters are left to their
    /// wake-up: a change is better news than a timeout.
    mutating func takeExpired(at now: ContinuousClock.Instant) -> Wake {
        var wake = Wake()
        var next: ContinuousClock.Instant?
        var expired: [ID] = []
        waiters.forEach { id, waiter in
            guard !waiter.isQueued, let deadline = waiter.deadline else { return }
            if deadline <= now { expired.append(id) } else { next = min(next ?? deadline, deadline) }
        }
        for id in expired {
            if let waiter = waiters.remove(id) { wake.ended.append(waiter.continuation) }
        }
        timer.target = next
        if !wake.ended.isEmpty { wake.watchers = takeSatisfiedWatchers() }
        return wake
    }

    /// Removes and returns the watchers satisfied by the current waiter count.
    mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
        guard !watchers.isEmpty else { return [] }
        let count = waiters.count
        let satisfied = watchers.filter { $0.count == count }.map(\.continuation)
        watchers.removeAll { $0.count == count }
        return satisfied
    }
}
