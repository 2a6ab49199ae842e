import SetteeJSON
import Testing

@Suite struct JSONWriterTests {
    @Test(arguments: [
        ("", #""""#),
        ("plain id", #""plain id""#),
        ("\"", #""\"""#),
        ("a\\b", #""a\\b""#),
        ("\n\r\t\u{08}\u{0C}", #""\n\r\t\b\f""#),
        ("\u{01}x\u{1F}", #""\u0001x\u001f""#),
        ("é/☃", "\"é/☃\""),
        ("end\"", #""end\"""#),
    ])
    func stringsEscapeOnlyWhatJSONRequires(input: String, expected: String) {
        var out: [UInt8] = []
        JSONWriter.writeString(input, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test func objectsAreCompactAndKeepMemberOrder() {
        let value: JSONValue = ["b": 1, "a": ["x", nil, true], "c": ["k\"": "v"]]
        #expect(JSONWriter.string(value) == #"{"b":1,"a":["x",null,true],"c":{"k\"":"v"}}"#)
    }
}
