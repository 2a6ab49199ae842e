@testable import SetteeStore
import Synchronization
import Testing

@Suite struct SharedAtSequenceTests {
    /// Counts how often the work really ran.
    final class Counter: Sendable {
        let runs = Atomic(0)
        func work(_ value: Int) -> @Sendable () async throws -> Int {
            { self.runs.add(1, ordering: .relaxed); return value }
        }
        var count: Int { runs.load(ordering: .relaxed) }
    }

    struct Failure: Error {}

    @Test func keptResultAnswersLaterCallersAtTheSameSequence() async throws {
        let shared = SharedAtSequence<String, Int>(maxKept: 4, keeps: { _ in true })
        let counter = Counter()
        #expect(try await shared.value(for: "a", at: 5, work: counter.work(1)) == 1)
        #expect(try await shared.value(for: "a", at: 5, work: counter.work(2)) == 1)
        #expect(counter.count == 1)
        // Another key is other work.
        #expect(try await shared.value(for: "b", at: 5, work: counter.work(3)) == 3)
        #expect(counter.count == 2)
    }

    /// A caller that saw a later sequence (e.g. after its own write) never gets an older result.
    @Test func laterSequenceRunsAgainAndDropsOldResults() async throws {
        let shared = SharedAtSequence<String, Int>(maxKept: 4, keeps: { _ in true })
        let counter = Counter()
        _ = try await shared.value(for: "a", at: 5, work: counter.work(1))
        _ = try await shared.value(for: "b", at: 5, work: counter.work(1))
        #expect(shared.keptCount == 2)
        #expect(try await shared.value(for: "a", at: 6, work: counter.work(2)) == 2)
        #expect(counter.count == 3)
        #expect(shared.keptCount == 1)
        // A caller still at the older sequence runs its own work and keeps nothing.
        #expect(try await shared.value(for: "b", at: 5, work: counter.work(7)) == 7)
        #expect(shared.keptCount == 1)
    }

    @Test func resultsRefusedByKeepsOrBeyondMaxKeptAreNotKept() async throws {
        let shared = SharedAtSequence<Int, Int>(maxKept: 2, keeps: { $0 < 100 })
        let counter = Counter()
        _ = try await shared.value(for: 1, at: 1, work: counter.work(500))
        _ = try await shared.value(for: 1, at: 1, work: counter.work(500))
        #expect(counter.count == 2)
        for key in 2...5 { _ = try await shared.value(for: key, at: 1, work: counter.work(key)) }
        #expect(shared.keptCount == 2)
    }

    @Test func failuresAreNotKept() async throws {
        let shared = SharedAtSequence<String, Int>(maxKept: 4, keeps: { _ in true })
        await #expect(throws: Failure.self) {
            try await shared.value(for: "a", at: 1) { throw Failure() }
        }
        #expect(try await shared.value(for: "a", at: 1) { 9 } == 9)
    }

    /// Concurrent callers with one key and sequence get the result of one of the runs:
    /// a caller that joined gets the runner's value, so there are as many distinct
    /// answers as runs.
    @Test func concurrentCallersGetTheResultOfARun() async throws {
        let shared = SharedAtSequence<String, Int>()
        let counter = Counter()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<50 { group.addTask { try await shared.value(for: "k", at: 1, work: counter.work(i)) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results.count == 50)
        #expect(Set(results).count == counter.count)
        #expect(shared.keptCount == 0)
    }
}
