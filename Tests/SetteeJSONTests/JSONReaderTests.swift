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
}
