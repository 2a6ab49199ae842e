@testable import SetteeHTTP
import Testing

/// A streamed body's chunk frame (RFC 9112 §7.1): size in lowercase hex, CRLF, the
/// data, CRLF; checked around every boundary where the hex size gains a digit.
@Suite struct StreamWriterTests {
    @Test(arguments: [1, 9, 10, 15, 16, 17, 255, 256, 4_095, 4_096, 65_535, 65_536, 1_048_577])
    func chunkFramesSizeAndData(size: Int) {
        let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let frame = StreamWriter.chunk(data)
        let head = Array(String(size, radix: 16).utf8) + [0x0D, 0x0A]
        #expect(frame.count == head.count + size + 2)
        #expect(Array(frame.prefix(head.count)) == head)
        #expect(Array(frame[head.count..<(head.count + size)]) == data)
        #expect(Array(frame.suffix(2)) == [0x0D, 0x0A])
    }

    @Test func chunkOfALineAsAFeedSendsIt() {
        let line = Array("{\"seq\":12,\"id\":\"a\",\"changes\":[{\"rev\":\"1-x\"}]}\n".utf8)
        #expect(String(decoding: StreamWriter.chunk(line), as: UTF8.self)
                == "2e\r\n{\"seq\":12,\"id\":\"a\",\"changes\":[{\"rev\":\"1-x\"}]}\n\r\n")
    }
}
