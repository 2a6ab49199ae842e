@testable import SetteeServer
import Testing

/// Sequences look like CouchDB 3's (`"<n>-<opaque>"`) and `since` reads them back.
@Suite struct SequenceTokenTests {
    @Test(arguments: [Int64(0), 1, 9, 255, 65_536, 1 << 40, Int64.max])
    func roundTrips(n: Int64) throws {
        let token = SequenceToken.string(n)
        #expect(token.hasPrefix("\(n)-"))
        #expect(token.count == "\(n)".count + 17)
        #expect(SequenceToken.parse(token) == n)
        #expect(SequenceToken.parse("\"" + token + "\"") == n)  // an eventsource id, as sent
        var json: [UInt8] = []
        SequenceToken.write(n, to: &json)
        #expect(String(decoding: json, as: UTF8.self) == "\"" + token + "\"")
    }

    @Test func readsPlainIntegers() {
        #expect(SequenceToken.parse("0") == 0)
        #expect(SequenceToken.parse("42") == 42)
    }

    /// Another number before the dash, CouchDB's own tokens, signs and garbage: no sequence.
    @Test func refusesWhatItDidNotWrite() {
        let five = SequenceToken.string(5)
        let opaque = five.split(separator: "-", maxSplits: 1)[1]
        for text in ["6-" + opaque, "5-", "5-abc", "-1", "+5", "1.5", "", "abc", "\"5",
                     "1-g1AAAACbeJzLYWBgYMpgTmEQTM4vTc5ISXIwNDLXMwBCwxyQ", five + "x"] {
            #expect(SequenceToken.parse(text) == nil, "\(text)")
        }
    }

    /// Tokens order as their numbers do when compared by the number before the dash.
    @Test func numberBeforeTheDashCounts() {
        for n: Int64 in [3, 10, 999] {
            #expect(SequenceToken.string(n).split(separator: "-").first.map(String.init) == String(n))
        }
    }
}
