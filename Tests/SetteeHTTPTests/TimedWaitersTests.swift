import Glibc
@testable import SetteeHTTP
import Synchronization
import Testing

/// The event loop sleeps until the earliest deadline pending (`TimedWaiters`), not for a
/// fixed 50 ms tick, and wakes early for a wait whose deadline comes sooner.
@Suite struct TimedWaitersTests {
    final class Wakes: Sendable {
        let count = Atomic<Int>(0)
    }

    @Test func noDeadlinePendingMeansSleepUntilAnEvent() {
        let timed = TimedWaiters(slack: .milliseconds(50), wakeLoop: {})
        #expect(timed.timeoutMS(now: .now) == -1)
    }

    /// The first deadline wakes the loop and sets its timeout; one within the slack of the
    /// planned wake, or later, costs no wake-up; one earlier by more than the slack does.
    @Test func onlyAnEarlierDeadlineWakesTheLoop() async throws {
        let wakes = Wakes()
        let timed = TimedWaiters(slack: .milliseconds(50)) { wakes.count.add(1, ordering: .relaxed) }
        let now = ContinuousClock.now
        let (first, second, third) = (IOWaiter(fd: -1, timed: timed), IOWaiter(fd: -1, timed: timed), IOWaiter(fd: -1, timed: timed))
        timed.add(first, deadline: now + .seconds(10))
        #expect(wakes.count.load(ordering: .relaxed) == 1)
        #expect((9_990...10_000).contains(timed.timeoutMS(now: now)))
        timed.add(second, deadline: now + .seconds(10) - .milliseconds(30))
        timed.add(second, deadline: now + .seconds(20))
        #expect(wakes.count.load(ordering: .relaxed) == 1)
        timed.add(third, deadline: now + .seconds(1))
        #expect(wakes.count.load(ordering: .relaxed) == 2)
        #expect((990...1_000).contains(timed.timeoutMS(now: now)))
    }

    /// A wait whose deadline passed ends with `timedOut`; the next sweep is planned at the
    /// earliest deadline still pending, and none once no wait has one.
    @Test func theSweepExpiresPassedWaitsAndPlansTheNext() async throws {
        let timed = TimedWaiters(slack: .milliseconds(50), wakeLoop: {})
        let (soon, later) = (IOWaiter(fd: -1, timed: timed), IOWaiter(fd: -1, timed: timed))
        let start = ContinuousClock.now
        async let soonEnded: Bool = Self.timesOut(soon, deadline: start + .milliseconds(10))
        async let laterEnded: Bool = Self.timesOut(later, deadline: start + .seconds(60))
        try await Self.poll { timed.count == 2 }
        #expect((0...10).contains(timed.timeoutMS(now: start)))
        timed.sweep(now: start + .milliseconds(20))
        #expect(await soonEnded)
        #expect((59_970...59_980).contains(timed.timeoutMS(now: start + .milliseconds(20))))
        later.fail(.connectionClosed)
        timed.sweep(now: start + .milliseconds(30))
        #expect(await laterEnded == false)
        #expect(timed.timeoutMS(now: .now) == -1)
    }

    /// An idle loop (no wait with a deadline) stays asleep: it used to return from
    /// `epoll_wait` every 50 ms, twenty times a second per server for nothing.
    @Test func anIdleLoopDoesNotTick() async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        try await Task.sleep(for: .milliseconds(100))
        let before = loop.wakeUps.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(600))
        #expect(loop.wakeUps.load(ordering: .relaxed) - before <= 1)
    }

    /// A read wait with a deadline, started while the loop sleeps with none pending, still
    /// times out: the new deadline wakes the loop to plan its sweep.
    @Test func aDeadlineSetWhileTheLoopSleepsStillFires() async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let waiter = try loop.register(fd: fds[0])
        defer { loop.deregister(waiter) }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        let timedOut = await Self.timesOut(waiter, deadline: start + .milliseconds(200))
        let took = ContinuousClock.now - start
        #expect(timedOut)
        #expect(took >= .milliseconds(200) && took < .seconds(5))
    }

    /// Whether a read wait on `waiter` ends with `HTTPError.timedOut`.
    static func timesOut(_ waiter: IOWaiter, deadline: ContinuousClock.Instant) async -> Bool {
        do {
            try await waiter.wait(for: .read, deadline: deadline)
            return false
        } catch HTTPError.timedOut {
            return true
        } catch {
            return false
        }
    }

    /// Polls `condition` every 5 ms for up to 5 s.
    static func poll(_ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < end else { Issue.record("condition not met within 5 s"); return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
