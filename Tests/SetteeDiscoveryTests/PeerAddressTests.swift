import Glibc
@testable import SetteeDiscovery
import Testing

/// Addresses from A and AAAA records, and the URLs built from them (issue 41, item 4: a
/// room whose link has only IPv6 link-local addresses).
@Suite struct PeerAddressTests {
    static let linkLocal: [UInt8] = [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55]

    @Test func aRecordsAreDottedQuadsAndOtherLengthsAreRefused() {
        #expect(PeerAddress.ipv4([198, 18, 0, 1]) == "198.18.0.1")
        #expect(PeerAddress.ipv4([1, 2, 3]) == nil)
        #expect(PeerAddress.ipv6([1, 2, 3, 4], interfaceIndex: 1) == nil)
    }

    @Test func aLinkLocalAddressCarriesTheNameOfTheInterfaceItWasSeenOn() throws {
        let lo = if_nametoindex("lo")
        try #require(lo != 0)
        #expect(PeerAddress.ipv6(Self.linkLocal, interfaceIndex: lo) == "fe80::211:22ff:fe33:4455%lo")
        // Without its interface a link-local address reaches nothing: it is dropped, not guessed.
        #expect(PeerAddress.ipv6(Self.linkLocal, interfaceIndex: 0) == nil)
        // A global address needs no zone.
        let global: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [1]
        #expect(PeerAddress.ipv6(global, interfaceIndex: lo) == "2001:db8::1")
    }

    @Test func urlsBracketIPv6AndPercentEncodeTheZoneAsRFC6874Says() {
        #expect(PeerAddress.urlHost("198.18.0.1") == "198.18.0.1")
        #expect(PeerAddress.urlHost("2001:db8::1") == "[2001:db8::1]")
        #expect(PeerAddress.urlHost("fe80::1%eth0") == "[fe80::1%25eth0]")
        let peer = DiscoveredPeer(instance: "Settee on pi", host: "pi.local.", port: 5984, addresses: ["fe80::1%eth0"],
                                  interfaceIndex: 2, record: TXTRecord())
        #expect(peer.baseURL == "http://[fe80::1%25eth0]:5984")
    }

    @Test func ipv4AddressesComeFirstWhateverOrderTheRecordsArriveIn() {
        #expect(PeerAddress.preferred(["fe80::1%eth0", "198.18.0.1", "2001:db8::1", "198.18.0.2"])
                == ["198.18.0.1", "198.18.0.2", "fe80::1%eth0", "2001:db8::1"])
    }
}
