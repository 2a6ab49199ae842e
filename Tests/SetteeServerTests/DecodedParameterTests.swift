import SetteeJSON
@testable import SetteeServer
import Testing

/// Body view parameters and the Erlang terms CouchDB 3.4.3's reasons print for them.
@Suite struct DecodedParameterTests {
    @Test func erlangTermsAsCouchDBPrintsThem() {
        let cases: [(JSONValue, String)] = [
            ("x", #"<<"x">>"#), ("", "<<>>"), (1, "1"), (-1, "-1"), (.number(JSONNumber(text: "1.5")), "1.5"),
            (.number(JSONNumber(text: "1e100")), "1.0e100"), (true, "true"), (.null, "null"), ([1], "[1]"),
            (["a": 1], #"{[{<<"a">>,1}]}"#), ("é", "<<195,169>>"), (#"a"b"#, #"<<"a\"b">>"#),
        ]
        for (value, text) in cases { #expect(ErlangTerm.print(value, printable: .ascii) == text) }
    }

    @Test func integersMustBeJSONIntegers() throws {
        #expect(try DecodedParameter.nonNegativeInt(3) == 3)
        #expect(throws: CouchError.self) { try DecodedParameter.int("3") }
        #expect(throws: CouchError.self) { try DecodedParameter.nonNegativeInt(-1) }
    }

    @Test func booleansMayBeSpelled() throws {
        #expect(try DecodedParameter.bool("TRUE") && !(try DecodedParameter.bool(false)))
        #expect(throws: CouchError.self) { try DecodedParameter.bool(1) }
    }
}
