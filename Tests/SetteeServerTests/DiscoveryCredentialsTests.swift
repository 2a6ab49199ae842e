@testable import SetteeServer
import Testing

/// `[discovery] credentials` as `name:password` or as the URL `settee pair` prints, and
/// which TLS peers that lets this server sync with.
@Suite struct DiscoveryCredentialsTests {
    static let fingerprint = "79:05:0E:60:0B:FE:64:19:7D:99:D1:9A:F7:2F:21:08:B5:3C:BB:C5:31:52:89:FE:86:C6:92:6C:74:BC:C1:A9"

    @Test func plainCredentialsSplitAtTheFirstColon() {
        var config = DiscoveryConfiguration()
        config.credentials = "admin:pass:with:colons"
        #expect(config.peerCredentials?.name == "admin" && config.peerCredentials?.password == "pass:with:colons")
        #expect(config.pairedFingerprint == nil)
        #expect(!config.trusts(advertised: Self.fingerprint))
    }

    @Test func aPairingURLGivesItsCredentialsAndItsPin() {
        var config = DiscoveryConfiguration()
        let hex = Self.fingerprint.filter { $0 != ":" }.lowercased()
        config.credentials = "https://pair-0c4c5d1b17:p%40ss@192.0.2.2:6984/photos#fp=\(hex)"
        #expect(config.peerCredentials?.name == "pair-0c4c5d1b17" && config.peerCredentials?.password == "p@ss")
        #expect(config.pairedFingerprint == hex)
        // The peer advertising that certificate (in either spelling) is trusted; no other is.
        #expect(config.trusts(advertised: Self.fingerprint))
        #expect(config.trusts(advertised: hex.uppercased()))
        #expect(!config.trusts(advertised: "00" + hex.dropFirst(2)))
        #expect(!config.trusts(advertised: nil))
    }

    @Test func trustOnSightIsOptIn() {
        var config = DiscoveryConfiguration()
        #expect(!config.trusts(advertised: Self.fingerprint))
        config.trustAdvertisedFingerprint = true
        #expect(config.trusts(advertised: Self.fingerprint))
    }
}
