@testable import SetteeHTTP
import Testing

private func decode(_ text: String, maxBody: Int = 1000, split: Int? = nil) throws(HTTPError) -> (body: String, rest: Int, done: Bool) {
    var decoder = ChunkedDecoder(maxBodyBytes: maxBody, maxTrailerBytes: 100)
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    var consumed = 0
    // Feed in pieces of `split` bytes to prove the state machine resumes anywhere.
    var fed = 0
    while fed < bytes.count, !decoder.isComplete {
        let end = min(bytes.count, fed + (split ?? bytes.count))
        consumed = try decoder.decode(Array(bytes[..<end]), from: consumed, into: &out)
        fed = end
    }
    return (String(decoding: out, as: UTF8.self), bytes.count - consumed, decoder.isComplete)
}

private func isChunkError(_ e: HTTPError) -> Bool { if case .malformedChunk = e { true } else { false } }

@Suite struct ChunkedDecoderTests {
    @Test func decodesChunksExtensionsAndTrailers() throws {
        let text = "5;name=val\r\nhello\r\n6 ; x\r\n world\r\n0\r\nTrailer: t\r\n\r\nGET"
        for split in [1, 2, 3, 7, 1000] {
            let r = try decode(text, split: split)
            #expect(r.body == "hello world")
            #expect(r.done)
            #expect(r.rest == 3, "pipelined bytes stay unconsumed (split \(split))")
        }
    }

    @Test func hexSizesAnyCase() throws {
        let r = try decode("A\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n")
        #expect(r.body.count == 20)
    }

    @Test func incompleteIsNotDone() throws {
        #expect(try decode("5\r\nhel").done == false)
        #expect(try decode("0\r\n").done == false)
    }

    @Test func rejectsBadFraming() {
        let bad = [
            "x\r\n", "\r\n", ";ext\r\n", "5\nhello\r\n", "5\r\nhelloX\r\n", "5\r\nhello\n0\r\n\r\n",
            "5 5\r\n", "0\r\n\n", "0\r\nA: b\n\r\n", "1\r\n\u{0}\r\n0\r\nbad\rx", "3;\u{1}\r\n",
            "FFFFFFFFFFFFFFFFFFFF\r\n", "-1\r\n",
        ]
        for text in bad {
            do {
                _ = try decode(text)
                Issue.record("accepted \(text.debugDescription)")
            } catch {
                #expect(isChunkError(error) || error == .bodyTooLarge(limit: 1000), "\(text.debugDescription)")
            }
        }
    }

    @Test func bodyLimitCountsAcrossChunks() {
        #expect(throws: HTTPError.bodyTooLarge(limit: 8)) { try decode("5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", maxBody: 8) }
        #expect(throws: HTTPError.bodyTooLarge(limit: 8)) { try decode("7FFFFFFFFFFFFFFF\r\n", maxBody: 8) }
    }

    @Test func trailerLimit() {
        let text = "0\r\nX: \(String(repeating: "a", count: 200))\r\n\r\n"
        #expect(throws: HTTPError.headersTooLarge(limit: 100)) { try decode(text) }
    }

    @Test func extensionLengthBounded() {
        let text = "1;" + String(repeating: "a", count: 5000) + "\r\n"
        #expect(throws: HTTPError.malformedChunk("chunk extension too long")) { try decode(text) }
    }
}
