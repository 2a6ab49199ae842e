import Dispatch
import Logging
@testable import SetteeDiscovery
import Synchronization
import Testing

/// `ServiceBrowser`'s reading of the browse's adds and removals, fed on a loop of the test's own
/// (no daemon: the resolutions the adds begin fail and wait, which changes nothing here). A
/// service registered again is removed and added within a second or two: its peers must not
/// take that for a departure (`VanishGrace`). In a room of 20 each such re-registration made 19
/// peers drop and restart their replications with the device, and the device register again.
@Suite struct ServiceBrowserTests {
    final class Events: Sendable {
        let list = Mutex<[PeerEvent]>([])
        var departed: [String] {
            list.withLock { $0.compactMap { if case .disappeared(let name) = $0 { name } else { nil } } }
        }
    }

    static let grace = 0.3

    /// A started loop and a browser on it with a short grace, reporting into `events`.
    static func browser(_ events: Events) -> (DNSSDLoop, ServiceBrowser) {
        let loop = DNSSDLoop()
        loop.start()
        let browser = ServiceBrowser(type: "_settee-test._tcp", loop: loop, logger: Logger(label: "test"),
                                     vanishGrace: grace) { event in events.list.withLock { $0.append(event) } }
        return (loop, browser)
    }

    /// Runs `block` on the loop thread and waits for it.
    static func onLoop(_ loop: DNSSDLoop, _ block: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        loop.perform {
            block()
            done.signal()
        }
        done.wait()
    }

    static func waitUntil(_ condition: () -> Bool, seconds: Double = 10) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test func anInstanceRemovedAndAddedAgainWithinTheGraceNeverLeft() async throws {
        let events = Events()
        let (loop, browser) = Self.browser(events)
        defer { browser.stop(); loop.stop() }
        Self.onLoop(loop) {
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: true)
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: false)  // the old registration's goodbye
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: true)   // the new one's announcement
            browser.browsed("Settee on lab", domain: "local.", interface: 2, added: true)
            browser.browsed("Settee on lab", domain: "local.", interface: 2, added: false)  // gone for good, later
        }
        try await Self.waitUntil { events.departed.contains("Settee on lab") }
        #expect(events.departed == ["Settee on lab"])
    }

    @Test func anInstanceThatStaysGoneDepartsAfterTheGrace() async throws {
        let events = Events()
        let (loop, browser) = Self.browser(events)
        defer { browser.stop(); loop.stop() }
        let start = ContinuousClock.now
        Self.onLoop(loop) {
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: true)
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: false)
        }
        #expect(events.departed.isEmpty)
        try await Self.waitUntil { !events.departed.isEmpty }
        #expect(events.departed == ["Settee on pi"])
        #expect(ContinuousClock.now - start >= .seconds(Self.grace))
    }

    @Test func anInstanceStillOnAnotherInterfaceHasNotLeft() async throws {
        let events = Events()
        let (loop, browser) = Self.browser(events)
        defer { browser.stop(); loop.stop() }
        Self.onLoop(loop) {
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: true)
            browser.browsed("Settee on pi", domain: "local.", interface: 3, added: true)
            browser.browsed("Settee on pi", domain: "local.", interface: 2, added: false)
            browser.browsed("Settee on lab", domain: "local.", interface: 2, added: true)
            browser.browsed("Settee on lab", domain: "local.", interface: 2, added: false)
        }
        try await Self.waitUntil { events.departed.contains("Settee on lab") }
        #expect(events.departed == ["Settee on lab"])
    }
}
