import Dispatch
import SetteeJSON
import SetteeViews
import Synchronization
import Testing

/// Counters shared with jobs on the pool's threads.
private final class Counters: Sendable {
    let running = Atomic<Int>(0)
    let most = Atomic<Int>(0)
    let ran = Atomic<Bool>(false)
}

/// The JavaScript service's threads: bounded, off the cooperative pool, with a bounded queue.
@Suite struct JavaScriptThreadsTests {
    @Test func aCallRunsOnAThreadOfItsOwnAndAnswers() async throws {
        let threads = JavaScriptThreads(threadCount: 2, queueLimit: 4, maximumWait: 5)
        let engine = try JavaScriptEngine()
        let map = try engine.compile("function(doc) { emit(doc.n, null); }")
        let rows = try await threads.run { () throws(JavaScriptError) in try engine.map(map, documents: [#"{"n":7}"#]) }
        #expect(rows[0] == [[7, nil]])
        #expect(threads.load.threads == 1)
    }

    @Test func neverMoreThreadsThanItsBound() async throws {
        let threads = JavaScriptThreads(threadCount: 2, queueLimit: 64, maximumWait: 30)
        let counters = Counters()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await threads.run { () throws(JavaScriptError) in
                        let now = counters.running.add(1, ordering: .sequentiallyConsistent).newValue
                        counters.most.max(now, ordering: .sequentiallyConsistent)
                        let engine = try JavaScriptEngine()
                        _ = try engine.compile("function() { var s = 0; for (var i = 0; i < 1e6; i++) s += i; }")
                        counters.running.subtract(1, ordering: .sequentiallyConsistent)
                    }
                }
            }
            try await group.waitForAll()
        }
        let most = counters.most.load(ordering: .sequentiallyConsistent)
        #expect(most <= 2)
        #expect(threads.load.threads <= 2)
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let threads = JavaScriptThreads(threadCount: 1, queueLimit: 1, maximumWait: 30)
        let release = DispatchSemaphore(value: 0)
        // One job holds the only thread, one waits in the queue: the third is refused.
        async let first: Void = threads.run { () throws(JavaScriptError) in release.wait() }
        // Polled, not waited for with a semaphore: this task must not hold a cooperative thread.
        await waitUntil { threads.load.running == 1 }
        async let second: Void = threads.run { () throws(JavaScriptError) in }
        await waitUntil { threads.load.waiting == 1 }
        await #expect {
            try await threads.run { () throws(JavaScriptError) in }
        } throws: { error in
            (error as? JavaScriptError)?.isOverloaded == true
        }
        release.signal()
        try await first
        try await second
    }

    @Test func aCallThatWaitedTooLongIsRefusedNotRun() async throws {
        let threads = JavaScriptThreads(threadCount: 1, queueLimit: 8, maximumWait: 0.2)
        let release = DispatchSemaphore(value: 0)
        let counters = Counters()
        async let first: Void = threads.run { () throws(JavaScriptError) in release.wait() }
        // Polled, not waited for with a semaphore: this task must not hold a cooperative thread.
        await waitUntil { threads.load.running == 1 }
        let late = Task { () async -> JavaScriptError? in
            do {
                try await threads.run { () throws(JavaScriptError) in counters.ran.store(true, ordering: .sequentiallyConsistent) }
                return nil
            } catch {
                return error as? JavaScriptError
            }
        }
        await waitUntil { threads.load.waiting == 1 }
        // Not synchronisation: the waiting job must be older than `maximumWait` when its turn comes.
        try await Task.sleep(for: .milliseconds(250))
        release.signal()
        try await first
        let refusal = await late.value
        #expect(refusal?.isOverloaded == true)
        let didRun = counters.ran.load(ordering: .sequentiallyConsistent)
        #expect(!didRun)
    }

    @Test func runAndWaitRunsThePartsAtOnce() throws {
        let threads = JavaScriptThreads(threadCount: 2, queueLimit: 8, maximumWait: 30)
        let both = DispatchSemaphore(value: 0)
        let counters = Counters()
        // Each part waits for the other to have started: only two threads at once finish.
        let parts = try threads.runAndWait(parts: 2) { part -> Int in
            if counters.running.add(1, ordering: .sequentiallyConsistent).newValue == 2 { both.signal(); both.signal() }
            both.wait()
            return part * 10
        }
        #expect(parts == [0, 10])
    }

    private func waitUntil(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() && ContinuousClock.now < deadline { await Task.yield() }
    }
}
