@testable import SetteeDiscovery
import Testing

/// The TXT record format and Settee's profile in it, including records from other
/// software that break the rules.
@Suite struct PeerProfileTests {
    @Test func aProfileRoundTripsThroughTheWireForm() throws {
        let profile = PeerProfile(databases: ["photos", "notes"], uuid: "0123abcd", usesTLS: true, tlsFingerprint: "ab12")
        let bytes = profile.record.bytes
        #expect(bytes.first == UInt8("txtvers=1".utf8.count))
        let read = try #require(PeerProfile(TXTRecord(bytes: bytes)))
        #expect(read == profile)
    }

    @Test func recordsAreReadAsRFC6763SaysAClientMust() {
        // Keys case-insensitive, first occurrence wins, `=value` and empty strings skipped,
        // a bare key has no value, a length past the end drops the rest.
        var bytes: [UInt8] = []
        for text in ["UUID=first", "uuid=second", "", "=orphan", "flag", "path=/a", "path=/b"] {
            bytes.append(UInt8(text.utf8.count))
            bytes.append(contentsOf: Array(text.utf8))
        }
        bytes += [200, UInt8(ascii: "x")]
        let record = TXTRecord(bytes: bytes)
        #expect(record["uuid"] == "first")
        #expect(record.entries.map(\.key) == ["UUID", "flag", "path", "path"])
        #expect(record["flag"] == nil && record.values("path") == ["/a", "/b"])
    }

    @Test func peersOfOtherVersionsOrWithOddPathsAreReadCarefully() {
        #expect(PeerProfile(TXTRecord([("txtvers", "2"), ("path", "/a")])) == nil)
        let odd = PeerProfile(TXTRecord([("path", "/"), ("path", "nope"), ("path", "/ok"), ("path", "/ok"),
                                         ("uuid", ""), ("fp", "ignored-without-tls")]))
        #expect(odd?.databases == ["ok"] && odd?.uuid == nil && odd?.tlsFingerprint == nil && odd?.usesTLS == false)
        // No txtvers (another implementation): read what is there.
        #expect(PeerProfile(TXTRecord([("path", "/db")]))?.databases == ["db"])
    }

    @Test func hundredsOfDatabasesStayWithinTheRecordLimit() throws {
        let many = PeerProfile(databases: (0..<2000).map { "database-number-\($0)" }, uuid: "u")
        let bytes = many.record.bytes
        #expect(bytes.count <= TXTRecord.maxBytes)
        let read = try #require(PeerProfile(TXTRecord(bytes: bytes)))
        #expect(read.uuid == "u" && read.databases.count > 100 && read.databases.count < 2000)
        #expect(read.databases.first == "database-number-0")
        // An entry that cannot be written (over 255 bytes) is left out, not cut.
        let long = PeerProfile(databases: [String(repeating: "x", count: 300), "short"], uuid: nil)
        #expect(PeerProfile(TXTRecord(bytes: long.record.bytes))?.databases == ["short"])
    }
}
