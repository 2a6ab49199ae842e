/*
 RequestParser: the request line and header section of one HTTP/1.x request
 (RFC 9112 §2–§5), as a pure value with no I/O so tests can feed raw bytes.

 The caller appends whatever the socket delivers to a buffer and calls
 `parse(_:from:)` again; nil means "need more bytes". A head is complete at the
 first empty line. Line endings are CRLF; a bare LF is also accepted as a line
 terminator (RFC 9112 §2.2 "MAY recognize a single LF"), but a bare CR is
 rejected (RFC 9112 §2.2 "MUST either consider it invalid or replace").

 Every framing error is an `HTTPError` the connection answers (rule 13 of STYLE):
   - too many bytes before the empty line, or too many fields → 431 (RFC 6585 §5)
   - Content-Length over the body limit → 413 (RFC 9110 §15.5.14)
   - anything malformed → 400, and the connection closes (RFC 9112 §2.2, §5, §6).
 */

/// Parses request heads from raw bytes. See the block comment for the rules.
struct RequestParser: Sendable {
    var limits: Limits

    init(limits: Limits) { self.limits = limits }

    /// Parses the head that starts at `buffer[start]`.
    /// - Returns: the head and the index just past it, or nil when more bytes are needed.
    /// - Throws: `HTTPError` (400/413/431 material) on malformed or oversized input.
    ///
    /// One pass finds and checks the head's end, a second reads its lines in place:
    /// no array of lines, no split request line (every request runs this; the
    /// intermediate arrays were a dozen allocations per request).
    func parse(_ buffer: [UInt8], from start: Int = 0) throws(HTTPError) -> (head: RequestHead, end: Int)? {
        let begin = skipLeadingEmptyLines(buffer, from: start)
        guard let end = try headEnd(buffer, from: begin) else { return nil }
        var lines = LineCursor(buffer: buffer, position: begin)
        guard let first = lines.next(), !first.isEmpty else { throw .malformedRequest("empty request") }
        let (method, target, version) = try Self.parseRequestLine(buffer[first])
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)
        var mentionsFraming = false
        var fieldCount = 0
        while let range = lines.next(), !range.isEmpty {
            fieldCount += 1
            guard fieldCount <= limits.maxHeaderCount else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
            let (name, value) = try Self.parseFieldLine(buffer[range])
            mentionsFraming = mentionsFraming || Self.affectsFraming(name)
            headers.add(name, value)
        }
        // Most requests name none of the four fields that framing and persistence
        // depend on: their answers are the defaults, without scanning the fields again.
        let head: RequestHead
        if mentionsFraming {
            head = RequestHead(
                method: method, target: target, version: version, headers: headers,
                framing: try Self.framing(of: headers, version: version, limits: limits),
                isKeepAlive: Self.isKeepAlive(headers, version: version),
                expectsContinue: Self.expectsContinue(headers, version: version))
        } else {
            head = RequestHead(method: method, target: target, version: version, headers: headers, framing: .none,
                               isKeepAlive: version == .http11, expectsContinue: false)
        }
        return (head, end)
    }

    /// Whether a field named `name` changes framing or persistence (see `framing(of:)`).
    private static func affectsFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 6: name.caseInsensitiveEquals("Expect")
        case 10: name.caseInsensitiveEquals("Connection")
        case 14: name.caseInsensitiveEquals("Content-Length")
        case 17: name.caseInsensitiveEquals("Transfer-Encoding")
        default: false
        }
    }

    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request-line
    /// (some clients send an extra CRLF after a POST body).
    private func skipLeadingEmptyLines(_ buffer: [UInt8], from start: Int) -> Int {
        var i = start
        while i < buffer.count {
            if buffer[i] == .lf { i += 1 } else if buffer[i] == .cr, i + 1 < buffer.count, buffer[i + 1] == .lf {
                i += 2
            } else { break }
        }
        return i
    }

    /// The index just past the head's empty line; nil when it has not arrived yet.
    /// Checks the whole head for size, bare CRs and NULs on the way.
    private func headEnd(_ buffer: [UInt8], from start: Int) throws(HTTPError) -> Int? {
        let maxBytes = limits.maxHeaderBytes
        return try buffer.withUnsafeBufferPointer { bytes throws(HTTPError) -> Int? in
            var lineStart = start
            var i = start
            while i < bytes.count {
                guard i - start < maxBytes else { throw .headersTooLarge(limit: maxBytes) }
                let byte = bytes[i]
                if byte == .lf {
                    let lineEnd = i > lineStart && bytes[i - 1] == .cr ? i - 1 : i
                    if lineEnd == lineStart { return i + 1 }
                    lineStart = i + 1
                } else if byte == .cr, i + 1 < bytes.count, bytes[i + 1] != .lf {
                    throw .malformedRequest("bare CR in header section")  // RFC 9112 §2.2
                } else if byte == 0 {
                    throw .malformedRequest("NUL in header section")  // RFC 9110 §5.5
                }
                i += 1
            }
            return nil
        }
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), single spaces only.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (String, String, HTTPVersion) {
        guard let firstSpace = line.firstIndex(of: .space),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: .space),
              !line[(secondSpace + 1)...].contains(.space)
        else { throw .malformedRequest("request line is not method SP target SP version") }
        let method = line[..<firstSpace], target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(\.isTokenCharacter) else { throw .malformedRequest("bad method") }
        // RFC 9112 §3.2: the target holds no whitespace or control characters.
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw .malformedRequest("bad request target")
        }
        return (String(decoding: method, as: UTF8.self), String(decoding: target, as: UTF8.self),
                try parseVersion(version))
    }

    /// HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3). A later 1.x minor is
    /// answered as 1.1 (RFC 9110 §2.5); another major version is well formed but not
    /// HTTP/1 framing at all: 505 (RFC 9110 §15.6.6). Anything else is malformed.
    static func parseVersion(_ text: ArraySlice<UInt8>) throws(HTTPError) -> HTTPVersion {
        let start = text.startIndex
        guard text.count == 8, text.starts(with: "HTTP/".utf8), text[start + 5].isDigit,
              text[start + 6] == UInt8(ascii: "."), text[start + 7].isDigit
        else { throw .malformedRequest("malformed HTTP version") }
        guard text[start + 5] == UInt8(ascii: "1") else {
            throw .versionNotSupported(String(decoding: text, as: UTF8.self))
        }
        return text[start + 7] == UInt8(ascii: "0") ? .http10 : .http11
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5).
    static func parseFieldLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (String, String) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedRequest("field line without colon") }
        let name = line[line.startIndex..<colon]
        // RFC 9112 §5.1: no whitespace before the colon (MUST reject with 400); a leading
        // SP/HT is obs-fold, which RFC 9112 §5.2 lets a server reject with 400.
        guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else { throw .malformedRequest("bad field name") }
        var value = line[(colon + 1)...]
        while let f = value.first, f == .space || f == .tab { value.removeFirst() }
        while let l = value.last, l == .space || l == .tab { value.removeLast() }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }
}

/// The lines of a head already known to be complete (`headEnd`), without their
/// terminators; the empty line that ends the head comes back as an empty range.
private struct LineCursor {
    let buffer: [UInt8]
    var position: Int

    mutating func next() -> Range<Int>? {
        guard position < buffer.count, let lf = buffer[position...].firstIndex(of: .lf) else { return nil }
        let lineEnd = lf > position && buffer[lf - 1] == .cr ? lf - 1 : lf
        defer { position = lf + 1 }
        return position..<lineEnd
    }
}

extension UInt8 {
    static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    var isDigit: Bool { self >= 0x30 && self <= 0x39 }

    /// tchar (RFC 9110 §5.6.2): ALPHA, DIGIT and `!#$%&'*+-.^_`|~`.
    var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 0x30...0x39: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }
}
