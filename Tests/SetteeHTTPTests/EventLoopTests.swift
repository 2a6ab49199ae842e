import Glibc
@testable import SetteeHTTP
import Testing

/// The event loop as a `TaskExecutor` (`LoopJobs`): tasks that prefer it run on its thread.
@Suite struct EventLoopTests {
    @Test func aTaskThatPrefersTheLoopRunsOnItsThread() async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let onLoop = await Task(executorPreference: loop) { loop.isCurrentThread && EventLoop.isOnLoopThread }.value
        #expect(onLoop)
        #expect(!loop.isCurrentThread)
    }

    /// A job enqueued from another thread wakes the loop asleep in `epoll_wait` at once:
    /// 1,000 hops pool → loop would take about 25 s if each waited for the loop's 50 ms tick.
    @Test func hopsBackFromThePoolWakeTheSleepingLoop() async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let started = ContinuousClock.now
        let allOnLoop = await Task(executorPreference: loop) {
            var onLoop = 0
            for _ in 0..<1_000 {
                await withTaskExecutorPreference(globalConcurrentExecutor) { precondition(!loop.isCurrentThread) }
                if loop.isCurrentThread { onLoop += 1 }
            }
            return onLoop
        }.value
        #expect(allOnLoop == 1_000)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// Once the loop has stopped, a task that still prefers it runs on the pool instead
    /// of waiting forever for a thread that is gone.
    @Test func aStoppedLoopHandsItsTasksToThePool() async throws {
        let loop = try EventLoop()
        try loop.start()
        loop.stop()
        let ran = await Task(executorPreference: loop) { !loop.isCurrentThread }.value
        #expect(ran)
    }

    /// A task on the loop may stop it (its thread then ends on its own, not joined by itself).
    @Test func theLoopCanBeStoppedFromItsOwnThread() async throws {
        let loop = try EventLoop()
        try loop.start()
        let stoppedOnLoop = await Task(executorPreference: loop) {
            let here = loop.isCurrentThread
            loop.stop()
            return here
        }.value
        #expect(stoppedOnLoop)
        let after = await Task(executorPreference: loop) { loop.isCurrentThread }.value
        #expect(!after)
    }

    /// A stopped loop keeps its epoll and eventfd descriptors until it is released: a late
    /// wake-up (a job enqueued as the loop stopped) or deregistration uses them after `stop`,
    /// and closed there, their numbers could already name another socket, which then got
    /// the eventfd's eight bytes (or another loop lost a registration).
    @Test func aStoppedLoopKeepsItsDescriptorsUntilReleased() async throws {
        var loop: EventLoop? = try EventLoop()
        try loop?.start()
        let (epoll, wake) = loop!.descriptors
        loop?.stop()
        #expect(Self.kind(of: epoll) == "anon_inode:[eventpoll]")
        #expect(Self.kind(of: wake) == "anon_inode:[eventfd]")
        weak let released = loop
        loop = nil
        #expect(released == nil, "nothing may keep a stopped loop (its descriptors would leak)")
    }

    /// What `/proc/self/fd/<fd>` links to ("" when the descriptor is not open).
    static func kind(of fd: Int32) -> String {
        var target = [CChar](repeating: 0, count: 256)
        let n = readlink("/proc/self/fd/\(fd)", &target, target.count - 1)
        return n > 0 ? String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }
}
