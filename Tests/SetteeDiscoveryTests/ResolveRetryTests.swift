import Testing
@testable import SetteeDiscovery

/// An instance that gives no address is resolved again ever later, so names left behind by
/// a renamed service stop costing an idle device its D-Bus connections every 12 s.
@Suite struct ResolveRetryTests {
    @Test func eachMissInARowDoublesTheWait() {
        #expect(ResolveRetry.delay(afterMisses: 1) == ResolveRetry.first)
        #expect(ResolveRetry.delay(afterMisses: 2) == 2 * ResolveRetry.first)
        #expect(ResolveRetry.delay(afterMisses: 3) == 4 * ResolveRetry.first)
    }

    @Test func theWaitStopsGrowingAtTheLongest() {
        #expect(ResolveRetry.delay(afterMisses: 6) == ResolveRetry.longest)
        #expect(ResolveRetry.delay(afterMisses: 1_000) == ResolveRetry.longest)
    }

    @Test func noMissWaitsTheFirstDelay() {
        #expect(ResolveRetry.delay(afterMisses: 0) == ResolveRetry.first)
    }
}
