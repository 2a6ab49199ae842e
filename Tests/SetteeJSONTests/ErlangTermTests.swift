import SetteeJSON
import Testing

/// Values as CouchDB 3.4.3's reasons quote them (each case read from its answers).
@Suite struct ErlangTermTests {
    private static func float(_ text: String) -> JSONValue { .number(JSONNumber(text: text)) }

    @Test func printWritesPrintableTextAsText() {
        let cases: [(JSONValue, String)] = [
            ("x", #"<<"x">>"#), ("", "<<>>"), ("é", #"<<"é">>"#), ("a\nb", #"<<"a\nb">>"#), (#"a"b"#, #"<<"a\"b">>"#),
            (["k": "v"], #"{[{<<"k">>,<<"v">>}]}"#), ([1, "a"], #"[1,<<"a">>]"#), (.null, "null"), (true, "true"),
        ]
        for (value, text) in cases { #expect(ErlangTerm.print(value) == text) }
    }

    @Test func printWithASCIIWritesOtherTextAsBytes() {
        #expect(ErlangTerm.print("é", printable: .ascii) == "<<195,169>>")
        #expect(ErlangTerm.print("x", printable: .ascii) == #"<<"x">>"#)
    }

    @Test func writeWritesEveryBinaryAsBytes() {
        #expect(ErlangTerm.write("x\"é") == "<<120,34,195,169>>")
        #expect(ErlangTerm.write([:]) == "{[]}")
        #expect(ErlangTerm.write(["x": [1, "a"]]) == "{[{<<120>>,[1,<<97>>]}]}")
        #expect(ErlangTerm.write(-1) == "-1")
    }

    /// io_lib_format: the shortest digits, with the exponent form only where it is shorter.
    @Test func floatsAsErlangWritesThem() {
        let cases = [("1.5", "1.5"), ("1e3", "1.0e3"), ("1000.0", "1.0e3"), ("100.0", "100.0"), ("1234.0", "1234.0"),
                     ("0.001", "0.001"), ("0.0001", "0.0001"), ("1e-5", "1.0e-5"), ("1e100", "1.0e100"),
                     ("-2.5e-7", "-2.5e-7"), ("0.5", "0.5"), ("0.0", "0.0"), ("12345678.9", "12345678.9")]
        for (literal, erlang) in cases { #expect(ErlangTerm.write(Self.float(literal)) == erlang, "\(literal)") }
    }
}
