import SetteeJSON
import Testing

@Suite struct JSONReaderTests {
    @Test func roundTripsKeepingOrderAndNumberText() throws {
        let text = #"{"b":1,"a":[true,false,null,-0.5e10,"x\ny"],"c":{"d":"é"}}"#
        let value = try JSONReader.parse(text)
        #expect(JSONWriter.string(value) == text)
        #expect(value["b"]?.intValue == 1)
        #expect(value.objectValue?.keys == ["b", "a", "c"])
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONReader.parse(#"" \u00e9 \ud83d\ude00 \/ \" ""#)
        #expect(value.stringValue == " é 😀 / \" ")
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "tru", "\"abc", "[1] 2", "{'a':1}",
        "\"\\x\"", "\"\\ud800\"", "\"\\udc00x\"", "nul", "{\"a\" 1}", "\"a\u{01}\"",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: JSONError.self) { try JSONReader.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONError.self) { try JSONReader.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func enforcesDepthLimit() throws {
        let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect(throws: JSONError.self) { try JSONReader.parse(deep, maxDepth: 10) }
        _ = try JSONReader.parse(deep, maxDepth: 20)
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError.self) { try JSONReader.parse(hostile) }
    }

    @Test func writerEscapesControlCharacters() {
        #expect(JSONWriter.string(.string("a\u{01}\"\\/")) == #""a\u0001\"\\/""#)
    }

    /// CouchDB keeps a repeated key's last value, where it was last written: it decodes
    /// with `jiffy:decode(V, [dedupe_keys])` (couch_util:json_decode/2).
    @Test(arguments: [
        (#"{"v":1,"w":0,"v":2}"#, #"{"w":0,"v":2}"#),
        (#"{"a":1,"a":2,"a":3}"#, #"{"a":3}"#),
        (#"{"o":{"a":1,"b":2,"a":{"a":0,"a":[1]}},"o2":[{"x":1,"x":2}]}"#, #"{"o":{"b":2,"a":{"a":[1]}},"o2":[{"x":2}]}"#),
        (#"{"k\u0061":1,"ka":2,"b":3}"#, #"{"ka":2,"b":3}"#),
    ])
    func repeatedKeyKeepsItsLastValueAtItsLastPlace(text: String, kept: String) throws {
        let (value, hadDuplicateKeys) = try JSONReader.parseNotingDuplicateKeys(Array(text.utf8))
        #expect(JSONWriter.string(value) == kept)
        #expect(hadDuplicateKeys)
    }

    /// The same past `pairwiseKeyLimit` members, where keys are hashed instead of compared.
    @Test func repeatedKeyInALargeObject() throws {
        let members = (0..<40).map { "\"k\($0 % 30)\":\($0)" }.joined(separator: ",")
        let (value, hadDuplicateKeys) = try JSONReader.parseNotingDuplicateKeys(Array("{\(members)}".utf8))
        let object = try #require(value.objectValue)
        #expect(hadDuplicateKeys)
        #expect(object.keys == (10..<30).map { "k\($0)" } + (0..<10).map { "k\($0)" })
        #expect(object["k5"]?.intValue == 35)
        let distinct = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(try JSONReader.parseNotingDuplicateKeys(Array("{\(distinct)}".utf8)).hadDuplicateKeys == false)
    }
}
