import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// `StrictJSONCursor` accepts exactly the text `JSONReader` accepts: what it passes is
/// copied to the target unparsed, so it must never pass what the reader refuses.
@Suite struct StrictJSONCursorTests {
    /// Whether the cursor takes `bytes` as one JSON value with white space around it.
    private func cursorAccepts(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = StrictJSONCursor(buffer)
            guard cursor.skipValue(depth: 0) else { return false }
            cursor.skipWhitespace()
            return cursor.isAtEnd
        }
    }

    private func readerAccepts(_ bytes: [UInt8]) -> Bool { (try? JSONReader.parse(bytes)) != nil }

    static let samples: [String] = [
        #"{}"#, #"[]"#, #" { "a" : [ 1 , 2 ] } "#, "\t\n\r{\"a\":1}\n", #"{"a":1,}"#, #"[1,]"#, #"[,1]"#, #"{"a"}"#,
        #"{"a":}"#, #"{a:1}"#, #"{"a":1"b":2}"#, #"[1 2]"#, #"{"a":1}}"#, #"{"a":1} x"#, "", " ", "{",
        #"true"#, #"false"#, #"null"#, #"tru"#, #"nul"#, #"True"#, #"nulll"#, #"[true,false,null]"#,
        #"0"#, #"-0"#, #"01"#, #"-"#, #"1."#, #"1.5"#, #".5"#, #"1e5"#, #"1E+5"#, #"1e-5"#, #"1e"#, #"1e+"#,
        #"-1.25e-10"#, #"+1"#, #"0x1"#, #"1.e5"#, #"[-]"#, #"[1e5,2]"#,
        #""abc""#, #""a\"b\\c\/d\b\f\n\r\t""#, #""\u00e9\u0000\uFFFF""#, #""\ud83d\ude00""#, #""\ud83d""#,
        #""\ude00""#, #""\ud83d\u0041""#, #""\ud83dx""#, #""\u12""#, #""\u12G4""#, #""\x""#, #""\'""#,
        #""abc"#, #""\"#, "\"a\u{01}b\"", "\"a\tb\"", "\"é漢😀\"", #"{"é":"😀"}"#, #"{"\u0061":1,"a":2}"#,
        #"{"a":{"b":{"c":[{"d":[]}]}}}"#, #"[[[[]]]]"#, #"[[[[]]]"#, #"[{]}"#, #"{[]}"#,
    ]

    @Test(arguments: samples) func agreesWithTheReader(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(cursorAccepts(bytes) == readerAccepts(bytes), "\(text)")
    }

    @Test func invalidUTF8IsRefusedAsTheReaderRefusesIt() {
        let sequences: [[UInt8]] = [
            [0xC3, 0xA9], [0xC3], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80],
            [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xBF], [0xFE], [0xFF], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xE2, 0x28, 0xA1],
        ]
        for sequence in sequences {
            let bytes = [0x22] + sequence + [0x22]
            #expect(cursorAccepts(bytes) == readerAccepts(bytes), "\(sequence)")
            #expect(cursorAccepts(bytes) == (String(validating: sequence, as: UTF8.self) != nil), "\(sequence)")
        }
    }

    /// Every lead byte against every second byte, with good continuations after: the
    /// table of well-formed sequences, against `String(validating:)`.
    @Test func everyTwoByteStartAgreesWithStringValidation() {
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0x00)...0xFF {
                let sequence = [lead, second, 0x80, 0x80].prefix(lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2)
                let bytes = [0x22] + sequence + [0x22]
                let valid = second != 0x22 && second != 0x5C && second >= 0x20
                    && String(validating: Array(sequence), as: UTF8.self) != nil
                if cursorAccepts(bytes) != valid || readerAccepts(bytes) != valid {
                    Issue.record("\(sequence): cursor \(cursorAccepts(bytes)), reader \(readerAccepts(bytes)), valid \(valid)")
                }
            }
        }
    }

    @Test func nestingIsBoundedAsTheReaderBoundsIt() {
        let limit = JSONReader.defaultMaxDepth
        for depth in [limit - 1, limit, limit + 1] {
            for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
                let text = String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
                #expect(cursorAccepts(Array(text.utf8)) == readerAccepts(Array(text.utf8)), "\(depth) \(open)")
            }
        }
        #expect(cursorAccepts(Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)))
    }

    /// Random damage to valid documents (a byte changed, dropped or put in), seeded:
    /// the two agree on every result.
    @Test func damagedTextIsJudgedAsTheReaderJudgesIt() {
        let base = Array(#"{"_id":"d\u00e9","_rev":"2-ab","n":-1.5e3,"a":[true,false,null,{"x":"\ud83d\ude00 é\n"}],"o":{}}"#.utf8)
        let alphabet = Array(#"{}[]:,"\/ubfnrt0123456789.-+eE aéx"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        var random = SplitMix(state: 45)
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<(1 + Int.random(in: 0..<3, using: &random)) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &random)], at: at)
                }
            }
            if cursorAccepts(bytes) != readerAccepts(bytes) { disagreements.append(String(decoding: bytes, as: UTF8.self)) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}
