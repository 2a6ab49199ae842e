@testable import SetteeReplicator
import Synchronization
import Testing

@Suite struct ConcurrencyLimitTests {
    /// Twenty tasks through a limit of 3: never more than 3 inside at once, and all of them run.
    @Test func neverMoreThanTheLimitRunAtOnce() async throws {
        let limit = ConcurrencyLimit(3)
        let counts = Counts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await limit.run {
                        counts.state.withLock { $0.inside += 1; $0.most = max($0.most, $0.inside) }
                        await Task.yield()
                        try await Task.sleep(for: .milliseconds(2))
                        counts.state.withLock { $0.inside -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = counts.state.withLock { $0 }
        #expect(final.most <= 3)
        #expect(final.done == 20)
    }

    /// A slot is freed when its work throws.
    @Test func aThrowingBodyFreesItsSlot() async throws {
        struct Failure: Error {}
        let limit = ConcurrencyLimit(1)
        await #expect(throws: Failure.self) { try await limit.run { throw Failure() } }
        #expect(try await limit.run { 7 } == 7)
    }
}

/// How many are inside now, the most ever, and how many finished.
private final class Counts: Sendable {
    let state = Mutex((inside: 0, most: 0, done: 0))
}
