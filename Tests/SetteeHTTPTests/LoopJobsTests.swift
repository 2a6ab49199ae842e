import Dispatch
import Testing
@testable import SetteeHTTP

/// The loop's run queue polls for a resume only while a request begun on the loop waits
/// (`LoopJobs.awaitJob`, `EventLoop.answering`).
@Suite struct LoopJobsTests {
    /// With no request in flight the loop does not poll at all: an idle loop never spins.
    @Test func withNoRequestInFlightTheLoopDoesNotPoll() throws {
        let jobs = try Self.jobs()
        let started = ContinuousClock.now
        jobs.awaitJob(spinNanoseconds: 30_000_000_000)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// While a request is in flight the loop polls until its spin passes, then may sleep.
    @Test func aRequestInFlightMakesTheLoopPollForItsSpin() throws {
        let jobs = try Self.jobs()
        jobs.answering()
        let started = ContinuousClock.now
        jobs.awaitJob(spinNanoseconds: 2_000_000)
        #expect(ContinuousClock.now - started >= .milliseconds(2))
        jobs.answered()
    }

    /// A resume from another thread while a request waits on the loop finds the loop
    /// awake: no eventfd write, and the loop runs it on its thread. (A spin of 30 s:
    /// every resume comes within it.)
    @Test func aResumeWhileARequestWaitsNeedsNoWake() async throws {
        let loop = try EventLoop(spin: 30_000_000_000)
        try loop.start()
        defer { loop.stop() }
        let (onLoop, wakes) = await Task(executorPreference: loop) {
            let before = loop.eventfdWakes
            var onLoop = 0
            for _ in 0..<200 {
                await loop.answering {
                    await withCheckedContinuation { c in DispatchQueue.global().async { c.resume() } }
                }
                if loop.isCurrentThread { onLoop += 1 }
            }
            return (onLoop, loop.eventfdWakes - before)
        }.value
        #expect(onLoop == 200)
        #expect(wakes == 0)
    }

    /// A queue nothing enqueues on, so its eventfd is never written.
    private static func jobs() throws -> LoopJobs { LoopJobs(wakeFD: -1) }
}
