@testable import SetteeStore
import SetteeJSON
import SetteeTestSupport
import Testing

/// `ExternalTermEncoder` against what Erlang/OTP's `term_to_binary(T, [{minor_version, 1}])`
/// writes (erts "External Term Format"; the bytes checked in an `erl` shell).
@Suite struct ExternalTermEncoderTests {
    private func encoded(_ write: (inout ExternalTermEncoder) -> Void) -> [UInt8] {
        var encoder = ExternalTermEncoder()
        write(&encoder)
        return encoder.bytes
    }

    @Test func atomsAndIntegers() {
        #expect(encoded { $0.boolean(true) } == [131, 100, 0, 4] + Array("true".utf8))
        #expect(encoded { $0.integer(7) } == [131, 97, 7])
        #expect(encoded { $0.integer(300) } == [131, 98, 0, 0, 1, 44])
        #expect(encoded { $0.integer(-1) } == [131, 98, 255, 255, 255, 255])
        #expect(encoded { $0.integer(1 << 40) } == [131, 110, 6, 0, 0, 0, 0, 0, 0, 1])
        #expect(encoded { $0.integer(-(1 << 40)) } == [131, 110, 6, 1, 0, 0, 0, 0, 0, 1])
    }

    @Test func jsonAsJiffyDecodesIt() throws {
        // {[{<<"a">>, [1.5, null]}]}
        let value = try JSONReader.parse(#"{"a":[1.5,null]}"#)
        #expect(encoded { $0.json(value) } == [131, 104, 1, 108, 0, 0, 0, 1, 104, 2, 109, 0, 0, 0, 1, 97,
                                               108, 0, 0, 0, 2, 70, 63, 248, 0, 0, 0, 0, 0, 0,
                                               100, 0, 4, 110, 117, 108, 108, 106, 106])
        #expect(encoded { $0.json(.object([:])) } == [131, 104, 1, 106])
        #expect(encoded { $0.json(.array([])) } == [131, 106])
        // 1.0 is a float to jiffy, 1 an integer.
        #expect(encoded { $0.json(try! JSONReader.parse("1.0")) } == [131, 70, 63, 240, 0, 0, 0, 0, 0, 0])
    }

    @Test func listsOfBytesAreStrings() throws {
        // [1,2] is STRING_EXT; [1,256] and [1,2.0] are lists.
        #expect(encoded { $0.json(try! JSONReader.parse("[1,2]")) } == [131, 107, 0, 2, 1, 2])
        #expect(encoded { $0.json(try! JSONReader.parse("[1,256]")) } == [131, 108, 0, 0, 0, 2, 97, 1, 98, 0, 0, 1, 0, 106])
        #expect(encoded { $0.json(try! JSONReader.parse("[2.0]")) }.count == 1 + 5 + 9 + 1)
    }

    /// The text path (what the revision hash uses) writes the term the parsed value gives,
    /// for random documents written compact and with escapes and white space.
    @Test func textGivesTheSameTermAsTheParsedValue() throws {
        var random = SplitMix(state: 61)
        let strings = ["", "a", "é", "\u{1F600}", "a\"b", "\\", "\n\t", "\u{0}", "x/y"]
        func value(_ depth: Int) -> JSONValue {
            switch Int(random.next() % (depth > 2 ? 5 : 7)) {
            case 0: return .null
            case 1: return .bool(random.next() % 2 == 0)
            case 2: return .number(JSONNumber(text: ["0", "7", "255", "256", "-1", "1.5", "1e3", "-0", "99999999999999999999",
                                                     "2147483648"][Int(random.next() % 10)]))
            case 3: return .string(strings[Int(random.next() % UInt64(strings.count))])
            case 4: return .array((0..<Int(random.next() % 4)).map { _ in .int(Int(random.next() % 300)) })
            case 5: return .array((0..<Int(random.next() % 4)).map { _ in value(depth + 1) })
            default:
                var object = JSONObject()
                for _ in 0..<Int(random.next() % 4) { object.append(strings[Int(random.next() % 4)], value(depth + 1)) }
                return .object(object)
            }
        }
        for _ in 0..<3_000 {
            let document = value(0)
            let compact = JSONWriter.serialize(document)
            #expect(textTerm(compact) == encoded { $0.json(document) }, "\(document)")
        }
        // Escapes and white space decode to the same strings.
        let spelled = Array(#"{ "\u0061" : [ 1 , 2 ] , "b" : "\ud83d\ude00\/" }"#.utf8)
        #expect(textTerm(spelled) == encoded { $0.json(try! JSONReader.parse(#"{"a":[1,2],"b":"😀/"}"#)) })
        #expect(textTerm(Array("{\"a\":".utf8)) == nil)
        #expect(textTerm(Array("[1,2] 3".utf8)) == nil)
    }

    /// The term `json(text:)` writes, nil when it refuses the text.
    private func textTerm(_ text: [UInt8]) -> [UInt8]? {
        var encoder = ExternalTermEncoder()
        return encoder.json(text: text) ? encoder.bytes : nil
    }

    @Test func integersPastSixtyFourBits() throws {
        // 12345678901234567890123 = 0x029D42B64E76714244CB
        let value = try JSONReader.parse("12345678901234567890123")
        #expect(encoded { $0.json(value) } == [131, 110, 10, 0, 0xCB, 0x44, 0x42, 0x71, 0x76, 0x4E, 0xB6, 0x42, 0x9D, 0x02])
    }
}
