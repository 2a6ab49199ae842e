internal import Synchronization

/*
 The notifier's one timer: a task that sleeps until the earliest deadline of the
 waiters, ends every waiter whose deadline passed, and sleeps again until the
 next one; it exits when no waiter has a deadline.

 `DeadlineTimerState.target` is the instant the running timer will wake at. A
 waiter that registers with an earlier deadline (or when no timer runs) starts a
 new timer with the next `generation` and cancels the old one; a timer whose
 generation is no longer current returns without touching any waiter. A target
 may be earlier than needed (its waiter was woken by a commit meanwhile): the
 timer then wakes, ends nothing and re-targets, which costs one scan of the
 waiters per heartbeat period rather than one sleeping task per wait.
*/

/// The timer's share of `ChangesNotifierState`.
struct DeadlineTimerState {
    /// Non-nil exactly while a timer of the current generation runs and will wake by then.
    var target: ContinuousClock.Instant?
    var generation: UInt64 = 0
    var task: Task<Void, Never>?

    /// Makes sure a timer wakes by `deadline`. - Returns: the generation of a timer
    /// to start, or nil when the running one already wakes early enough.
    mutating func arm(for deadline: ContinuousClock.Instant) -> UInt64? {
        if let target, target <= deadline { return nil }
        target = deadline
        generation &+= 1
        return generation
    }
}

extension ChangesNotifier {
    /// Starts the timer of `generation` and cancels the one it replaces.
    func startTimer(generation: UInt64) {
        let task = Task { await self.runTimer(generation: generation) }
        let replaced = state.withLock { s -> Task<Void, Never>? in
            guard s.timer.generation == generation else { return task }  // itself superseded already
            defer { s.timer.task = task }
            return s.timer.task
        }
        replaced?.cancel()
    }

    private func runTimer(generation: UInt64) async {
        while true {
            let target = state.withLock { s in s.timer.generation == generation ? s.timer.target : nil }
            guard let target else { return }
            do { try await Task.sleep(until: target, clock: .continuous) } catch { return }
            let wake = state.withLock { s -> ChangesNotifierState.Wake in
                guard s.timer.generation == generation else { return .none }
                return s.takeExpired(at: .now)
            }
            wake.resume()
        }
    }
}
