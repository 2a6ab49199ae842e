import Dispatch
@testable import SetteeStore
import Synchronization
import Testing

@Suite struct GroupCommitTests {
    struct Refused: Error {}

    /// Submits 0, holds that commit until 1...5 are waiting behind it, then lets it finish;
    /// returns each commit call's items and the submissions that failed.
    func run(failing: Set<Int> = []) async throws -> (calls: [[Int]], failed: [Int]) {
        let firstStarted = DispatchSemaphore(value: 0), releaseFirst = DispatchSemaphore(value: 0)
        let calls = Mutex<[[Int]]>([])
        let group = GroupCommit<Int>(label: "test") { items in
            // Runs on the group's own queue: blocking here holds up only later commits.
            let isFirst = calls.withLock { $0.append(items); return $0.count == 1 }
            if isFirst {
                firstStarted.signal()
                releaseFirst.wait()
            }
            if !failing.isDisjoint(with: items) { throw Refused() }
        }
        return try await withThrowingTaskGroup(of: Int?.self) { tasks in
            let submit: @Sendable (Int) async -> Int? = { item in
                do { try await group.submit([item]) } catch { return item }
                return nil
            }
            tasks.addTask { await submit(0) }
            await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { firstStarted.wait(); started.resume() }
            }
            for item in 1...5 { tasks.addTask { await submit(item) } }
            let deadline = ContinuousClock.now + .seconds(10)
            while group.pendingCount < 5 && ContinuousClock.now < deadline { await Task.yield() }
            #expect(group.pendingCount == 5)
            releaseFirst.signal()
            var failed: [Int] = []
            for try await item in tasks { if let item { failed.append(item) } }
            return (calls.withLock { $0 }, failed.sorted())
        }
    }

    @Test func submissionsDuringACommitGoTogetherInTheNext() async throws {
        let (calls, failed) = try await run()
        #expect(calls.count == 2)
        #expect(calls.first == [0])
        #expect(calls.last?.sorted() == [1, 2, 3, 4, 5])
        #expect(failed.isEmpty)
    }

    @Test func aFailedCommitFailsEverySubmissionInIt() async throws {
        let (calls, failed) = try await run(failing: [3])
        #expect(calls.count == 2)
        #expect(failed == [1, 2, 3, 4, 5])
    }
}
