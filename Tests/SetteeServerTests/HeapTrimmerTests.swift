import Foundation
@testable import SetteeServer
import Synchronization
import Testing

@Suite struct HeapTrimmerTests {
    /// It trims at its interval until stopped, and not after.
    @Test func trimsAtItsIntervalUntilStopped() async throws {
        let trims = Atomic<Int>(0)
        let trimmer = HeapTrimmer(interval: .milliseconds(50)) { trims.add(1, ordering: .relaxed) }
        let deadline = Date().addingTimeInterval(20)
        while trims.load(ordering: .relaxed) < 3 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(trims.load(ordering: .relaxed) >= 3)
        trimmer.stop()
        try await Task.sleep(for: .milliseconds(100))  // a trim already under way may end
        let stopped = trims.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(300))
        #expect(trims.load(ordering: .relaxed) == stopped)
    }

}
