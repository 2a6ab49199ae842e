import Testing
@testable import SetteeStore

/// The read thread's spin adapts to the gaps between reads (`SpinWindow`).
@Suite struct SpinWindowTests {
    @Test func aGapTheSpinCaughtKeepsTheWindow() {
        var window = SpinWindow(limit: 80_000)
        window.record(gap: 10_000)
        #expect(window.current == 80_000)
    }

    /// Gaps past the limit (reads far apart, or a loaded machine) halve the window down
    /// to no spin at all; gaps within the limit widen it again.
    @Test func longGapsEndTheSpinAndShortOnesBringItBack() {
        var window = SpinWindow(limit: 80_000)
        window.record(gap: 1_000_000)
        #expect(window.current == 40_000)
        for _ in 0..<4 { window.record(gap: 1_000_000) }
        #expect(window.current == 0)
        window.record(gap: 30_000)
        #expect(window.current == 20_000)
        window.record(gap: 30_000)
        #expect(window.current == 40_000)
        window.record(gap: 30_000)
        #expect(window.current == 40_000)
        window.record(gap: 70_000)
        #expect(window.current == 80_000)
    }
}
