@testable import SetteeDiscovery
import Testing

/// `HostNameGuard`'s name for a daemon renamed in step with others: avahi's numeric suffix
/// replaced by a random one, within DNS's 63-byte label.
@Suite struct HostNameGuardTests {
    @Test func avahisCounterIsReplacedByARandomSuffix() {
        for current in ["raspberrypi-4", "raspberrypi", "raspberrypi-17"] {
            let name = HostNameGuard.nameOfItsOwn(from: current)
            #expect(name.hasPrefix("raspberrypi-") && name.count == "raspberrypi-".count + 6, "\(name)")
            let suffix = name.dropFirst("raspberrypi-".count)
            #expect(suffix.allSatisfy { $0.isHexDigit }, "\(name)")
        }
        // Two daemons renamed in step get different names (a clash is 1 in 16.7 million).
        #expect(HostNameGuard.nameOfItsOwn(from: "raspberrypi-4") != HostNameGuard.nameOfItsOwn(from: "raspberrypi-4"))
    }

    @Test func aSuffixThatIsNotAvahisCounterIsKept() {
        #expect(HostNameGuard.nameOfItsOwn(from: "quiz-host").hasPrefix("quiz-host-"))
        #expect(HostNameGuard.nameOfItsOwn(from: "lab-").hasPrefix("lab--"))
        #expect(HostNameGuard.nameOfItsOwn(from: "-3").hasPrefix("-3-"))
    }

    @Test func theNameFitsOneLabel() {
        let name = HostNameGuard.nameOfItsOwn(from: String(repeating: "a", count: 63))
        #expect(name.utf8.count <= 63, "\(name)")
    }
}
