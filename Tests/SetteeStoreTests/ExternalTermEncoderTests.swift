@testable import SetteeStore
import SetteeJSON
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

    @Test func integersPastSixtyFourBits() throws {
        // 12345678901234567890123 = 0x029D42B64E76714244CB
        let value = try JSONReader.parse("12345678901234567890123")
        #expect(encoded { $0.json(value) } == [131, 110, 10, 0, 0xCB, 0x44, 0x42, 0x71, 0x76, 0x4E, 0xB6, 0x42, 0x9D, 0x02])
    }
}
