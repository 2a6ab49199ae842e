/*
 ChunkedDecoder: the chunked transfer coding of a request body (RFC 9112 §7.1),
 as a resumable byte-at-a-time state machine (data is copied in runs).

   chunked-body = *chunk last-chunk trailer-section CRLF
   chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
   last-chunk   = 1*("0") [ chunk-ext ] CRLF

   size ──hex──► size ──";"/BWS──► extension ──CR──► sizeLF ──LF──► data(n) ──► dataCR ► dataLF ► size
                                                       │ (n == 0)
                                                       ▼
                          trailerLineStart ──CR──► finalLF ──LF──► done
                                 │ other                 ▲
                                 ▼                       │
                           trailerLine ──CR──► trailerLF ┘ (back to trailerLineStart)

 Unlike the header section, chunk framing demands CRLF: the lenient bare-LF rule
 of RFC 9112 §2.2 covers the start-line and fields, and laxness inside a body is
 what request smuggling feeds on. Extensions are ignored (RFC 9112 §7.1.1 "MUST
 ignore unrecognized chunk extensions") but bounded; trailers are discarded
 (RFC 9112 §7.1.2 allows it) but bounded by the header limit.
 */

/// Decodes a chunked body incrementally. Pure value; see the block comment.
struct ChunkedDecoder: Sendable {
    private enum State: Sendable, Equatable {
        case size(value: Int, digits: Int)
        case sizeWhitespace(value: Int)
        case chunkExtension(value: Int)
        case sizeLF(value: Int)
        case data(remaining: Int)
        case dataCR, dataLF
        case trailerLineStart, trailerLine, trailerLF, finalLF
        case done
    }

    private var state = State.size(value: 0, digits: 0)
    private var lineBytes = 0
    private var trailerBytes = 0
    /// Body bytes decoded so far.
    private(set) var bodyBytes = 0
    let maxBodyBytes: Int
    let maxTrailerBytes: Int
    /// Longest chunk-size line accepted; extensions beyond it are an attack, not metadata.
    static let maxSizeLine = 4096

    init(maxBodyBytes: Int, maxTrailerBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// True once the last chunk and the trailer section have been read.
    var isComplete: Bool { state == .done }

    /// Decodes from `input[start...]`, appending body bytes to `output`.
    /// - Returns: the index after the last byte consumed; bytes after the end of the
    ///   body (a pipelined request) are left unconsumed.
    /// - Throws: `HTTPError.malformedChunk`, or `.bodyTooLarge` past `maxBodyBytes`.
    mutating func decode(_ input: [UInt8], from start: Int, into output: inout [UInt8]) throws(HTTPError) -> Int {
        var i = start
        while i < input.count, state != .done {
            if case .data(let remaining) = state {
                let n = min(remaining, input.count - i)
                output.append(contentsOf: input[i..<(i + n)])
                i += n
                state = remaining == n ? .dataCR : .data(remaining: remaining - n)
                continue
            }
            try step(input[i])
            i += 1
        }
        return i
    }

    private mutating func step(_ byte: UInt8) throws(HTTPError) {
        switch state {
        case .size(let value, let digits): try stepSize(byte, value: value, digits: digits)
        case .sizeWhitespace(let value):
            if byte == .space || byte == .tab { return }
            if byte == UInt8(ascii: ";") { state = .chunkExtension(value: value); return }
            guard byte == .cr else { throw .malformedChunk("bad character after chunk size") }
            state = .sizeLF(value: value)
        case .chunkExtension(let value):
            lineBytes += 1
            guard lineBytes <= Self.maxSizeLine else { throw .malformedChunk("chunk extension too long") }
            if byte == .cr { state = .sizeLF(value: value); return }
            guard byte == .tab || (byte >= 0x20 && byte != 0x7F) else { throw .malformedChunk("control character in chunk extension") }
        case .sizeLF(let value):
            guard byte == .lf else { throw .malformedChunk("chunk size line not ended by CRLF") }
            try startChunk(size: value)
        case .dataCR: guard byte == .cr else { throw .malformedChunk("chunk data longer than its size") }; state = .dataLF
        case .dataLF: guard byte == .lf else { throw .malformedChunk("chunk data not ended by CRLF") }; state = .size(value: 0, digits: 0)
        case .trailerLineStart, .trailerLine: try stepTrailer(byte)
        case .trailerLF: guard byte == .lf else { throw .malformedChunk("bare CR in trailer") }; state = .trailerLineStart
        case .finalLF: guard byte == .lf else { throw .malformedChunk("chunked body not ended by CRLF") }; state = .done
        case .data, .done: preconditionFailure("decode(_:from:into:) handles data and done")
        }
    }

    /// chunk-size = 1*HEXDIG (RFC 9112 §7.1); RFC 9112 §7.1 warns to guard against overflow.
    private mutating func stepSize(_ byte: UInt8, value: Int, digits: Int) throws(HTTPError) {
        if let digit = Self.hexValue(byte) {
            guard value <= (Int.max >> 4) else { throw .malformedChunk("chunk size overflows") }
            state = .size(value: value << 4 | digit, digits: digits + 1)
            return
        }
        guard digits > 0 else { throw .malformedChunk("missing chunk size") }
        lineBytes = 0
        switch byte {
        case UInt8(ascii: ";"): state = .chunkExtension(value: value)
        case .space, .tab: state = .sizeWhitespace(value: value)  // BWS before ";" (RFC 9112 §7.1.1)
        case .cr: state = .sizeLF(value: value)
        default: throw .malformedChunk("bad chunk size")
        }
    }

    private mutating func startChunk(size: Int) throws(HTTPError) {
        guard size > 0 else { state = .trailerLineStart; return }
        guard size <= maxBodyBytes - bodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        bodyBytes += size
        state = .data(remaining: size)
    }

    private mutating func stepTrailer(_ byte: UInt8) throws(HTTPError) {
        trailerBytes += 1
        guard trailerBytes <= maxTrailerBytes else { throw .headersTooLarge(limit: maxTrailerBytes) }
        if byte == .cr {
            state = state == .trailerLineStart ? .finalLF : .trailerLF
        } else if byte == .lf || byte == 0 {
            throw .malformedChunk("bad line ending in trailer")
        } else {
            state = .trailerLine
        }
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
