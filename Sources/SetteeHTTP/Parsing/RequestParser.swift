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
    func parse(_ buffer: [UInt8], from start: Int = 0) throws(HTTPError) -> (head: RequestHead, end: Int)? {
        let begin = skipLeadingEmptyLines(buffer, from: start)
        guard let lines = try splitHead(buffer, from: begin) else { return nil }
        guard let first = lines.ranges.first else { throw .malformedRequest("empty request") }
        let (method, target, version) = try Self.parseRequestLine(buffer[first])
        let fieldRanges = lines.ranges.dropFirst()
        guard fieldRanges.count <= limits.maxHeaderCount else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
        var headers = HTTPHeaders()
        for range in fieldRanges {
            let (name, value) = try Self.parseFieldLine(buffer[range])
            headers.add(name, value)
        }
        let framing = try Self.framing(of: headers, version: version, limits: limits)
        let head = RequestHead(
            method: method, target: target, version: version, headers: headers, framing: framing,
            isKeepAlive: Self.isKeepAlive(headers, version: version),
            expectsContinue: Self.expectsContinue(headers, version: version))
        return (head, lines.end)
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

    /// Finds the lines of the head (without terminators) and the index past the empty line.
    private func splitHead(_ buffer: [UInt8], from start: Int) throws(HTTPError) -> (ranges: [Range<Int>], end: Int)? {
        var ranges: [Range<Int>] = []
        var lineStart = start
        var i = start
        while i < buffer.count {
            guard i - start < limits.maxHeaderBytes else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
            let byte = buffer[i]
            if byte == .lf {
                var lineEnd = i
                if lineEnd > lineStart, buffer[lineEnd - 1] == .cr { lineEnd -= 1 }
                if lineEnd == lineStart { return (ranges, i + 1) }
                ranges.append(lineStart..<lineEnd)
                lineStart = i + 1
            } else if byte == .cr, i + 1 < buffer.count, buffer[i + 1] != .lf {
                throw .malformedRequest("bare CR in header section")  // RFC 9112 §2.2
            } else if byte == 0 {
                throw .malformedRequest("NUL in header section")  // RFC 9110 §5.5
            }
            i += 1
        }
        return nil
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), single spaces only.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (String, String, HTTPVersion) {
        let parts = line.split(separator: .space, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedRequest("request line is not method SP target SP version") }
        let method = parts[0], target = parts[1], version = parts[2]
        guard !method.isEmpty, method.allSatisfy(\.isTokenCharacter) else { throw .malformedRequest("bad method") }
        // RFC 9112 §3.2: the target holds no whitespace or control characters.
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw .malformedRequest("bad request target")
        }
        return (String(decoding: method, as: UTF8.self), String(decoding: target, as: UTF8.self),
                try parseVersion(version))
    }

    /// HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3). A later 1.x minor is
    /// answered as 1.1 (RFC 9110 §2.5); other majors are not HTTP/1 framing at all.
    static func parseVersion(_ text: ArraySlice<UInt8>) throws(HTTPError) -> HTTPVersion {
        let bytes = Array(text)
        guard bytes.count == 8, bytes.starts(with: Array("HTTP/1.".utf8)), bytes[7].isDigit else {
            throw .malformedRequest("unsupported HTTP version")
        }
        return bytes[7] == UInt8(ascii: "0") ? .http10 : .http11
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

extension UInt8 {
    static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    var isDigit: Bool { self >= 0x30 && self <= 0x39 }

    /// tchar (RFC 9110 §5.6.2).
    var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 0x30...0x39: true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(self)
        }
    }
}
