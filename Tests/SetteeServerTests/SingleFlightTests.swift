import Foundation
@testable import SetteeServer
import Synchronization
import Testing

@Suite struct SingleFlightTests {
    /// A gate a task waits at until the test opens it.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { c in
                let isOpen = state.withLock { s in
                    if !s.isOpen { s.waiters.append(c) }
                    return s.isOpen
                }
                if isOpen { c.resume() }
            }
        }
        func open() { state.withLock { s in s.isOpen = true; return s.waiters }.forEach { $0.resume() } }
    }

    enum Refused: Error { case full }

    /// Polls `condition` until it holds or 10 s pass.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return false }
            await Task.yield()
        }
        return true
    }

    /// Callers of one key while its work runs share that run; another key runs on its own.
    @Test func callersOfOneKeyShareOneRun() async throws {
        let flight = SingleFlight<String, Int>()
        let runs = Atomic<Int>(0)
        let gate = Gate()
        let work: @Sendable () async throws -> Int = {
            let run = runs.add(1, ordering: .relaxed).newValue
            await gate.wait()
            return run
        }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await flight.run("a", work) } }
            #expect(await eventually { flight.callers(of: "a") == 8 })
            group.addTask { try await flight.run("b", work) }
            #expect(await eventually { flight.callers(of: "b") == 1 })
            gate.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(values.count == 9 && Set(values) == [1, 2])
        #expect(flight.callers(of: "a") == 0, "forgotten once it ended")
    }

    /// A failure reaches every caller that shared the run; the next call runs the work again.
    @Test func aFailureIsSharedAndTheNextCallRunsAgain() async throws {
        let flight = SingleFlight<Int, String>()
        let runs = Atomic<Int>(0)
        let gate = Gate()
        let failing: @Sendable () async throws -> String = {
            runs.add(1, ordering: .relaxed)
            await gate.wait()
            throw Refused.full
        }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { (try? await flight.run(1, failing)) == nil } }
            #expect(await eventually { flight.callers(of: 1) == 4 })
            gate.open()
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == 4)
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(try await flight.run(1) { "again" } == "again")
    }
}
