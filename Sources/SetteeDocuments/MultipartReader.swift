internal import CLinux
/// An incremental multipart parser (RFC 2046 §5.1) for `multipart/related` uploads
/// (`PUT doc?new_edits=false` from CouchDB's replicator) and `multipart/mixed`
/// `open_revs` replies. Pure value type: no I/O, bytes in, events out.
///
/// Feed it chunks exactly as they come off the socket; a delimiter or CRLF split
/// across chunks is handled. Part bodies stream out as they arrive; only a header
/// block (bounded by `maxHeaderBytes`) and a delimiter-length tail are ever buffered.
///
/// Grammar relied on (RFC 2046 §5.1.1): the delimiter is `CRLF "--" boundary`; the
/// first one may open the body without the CRLF (the preamble is empty), and the
/// preamble is ignored. A delimiter is followed by optional transport padding
/// (spaces and tabs) and CRLF, then the part's header fields (RFC 5322 syntax) and an
/// empty line. The close delimiter is the delimiter plus `--`; what follows it (the
/// epilogue) is ignored. CouchDB ends its bodies right after `--B--`, with no CRLF.
///
/// State machine: preamble → afterDelimiter → headers → body → afterDelimiter … →
/// done. Each state consumes what it can from `buffer` and waits for more otherwise.
public struct MultipartReader {
    /// What the parser found, in order.
    public enum Event {
        /// A part begins; its header fields in order (names case-insensitive).
        case headers(MultipartHeaders)
        /// The next bytes of the current part's body (never empty).
        case body([UInt8])
        /// The current part's body is complete.
        case partEnd
        /// The close delimiter was seen: the message is complete.
        case end
    }

    public enum State { case preamble, afterDelimiter, headers, body, done }

    /// `delimiter` is `CRLF--boundary`.
    public let delimiter: [UInt8]
    public let maxHeaderBytes: Int
    public private(set) var state = State.preamble
    /// Unconsumed input. Starts with a virtual CRLF so that a delimiter opening the
    /// body matches the same pattern as every other.
    private var buffer: [UInt8] = [0x0D, 0x0A]
    private var start = 0

    /// A parser for parts separated by `boundary` (the `boundary` parameter of the
    /// Content-Type, without quotes; see `boundary(fromContentType:)`).
    public init(boundary: String, maxHeaderBytes: Int = 16 * 1024) {
        precondition(!boundary.isEmpty, "multipart boundary must not be empty")
        delimiter = [0x0D, 0x0A, 0x2D, 0x2D] + Array(boundary.utf8)
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Whether the close delimiter has been seen.
    public var isComplete: Bool { state == .done }

    /// Parses `bytes`, returning the events they complete.
    /// - Throws: `MultipartError` for malformed framing or an oversized header block.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(MultipartError) -> [Event] {
        if state == .done { return [] }  // epilogue: ignored (RFC 2046 §5.1.1)
        compact()
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while try step(into: &events) {}
        return events
    }

    /// Declares the end of input.
    /// - Throws: `MultipartError.missingFinalBoundary` unless the close delimiter was seen.
    public func finish() throws(MultipartError) {
        guard state == .done else { throw .missingFinalBoundary }
    }

    /// Runs the current state once; false when it needs more input.
    private mutating func step(into events: inout [Event]) throws(MultipartError) -> Bool {
        switch state {
        case .preamble: return skipPreamble()
        case .afterDelimiter: return try readDelimiterEnd(into: &events)
        case .headers: return try readHeaders(into: &events)
        case .body: return readBody(into: &events)
        case .done: return false
        }
    }

    private mutating func skipPreamble() -> Bool {
        if let at = find(delimiter, from: start) {
            start = at + delimiter.count
            state = .afterDelimiter
            return true
        }
        // Keep a tail that may be the start of the delimiter.
        start = max(start, buffer.count - (delimiter.count - 1))
        return false
    }

    /// After `CRLF--boundary`: `--` closes the message; padding and CRLF open a part.
    private mutating func readDelimiterEnd(into events: inout [Event]) throws(MultipartError) -> Bool {
        var i = start
        if i + 2 <= buffer.count, buffer[i] == 0x2D, buffer[i + 1] == 0x2D {
            state = .done
            start = buffer.count
            events.append(.end)
            return false
        }
        while i < buffer.count, buffer[i] == 0x20 || buffer[i] == 0x09 { i += 1 }
        if i - start > maxHeaderBytes { throw .headersTooLarge(limit: maxHeaderBytes) }
        guard i + 2 <= buffer.count else {
            // Not enough to decide; but a lone byte that cannot start "--" or CRLF is garbage.
            if i < buffer.count, buffer[i] != 0x0D, !(i == start && buffer[i] == 0x2D) {
                throw .malformed("unexpected bytes after a boundary")
            }
            return false
        }
        guard buffer[i] == 0x0D, buffer[i + 1] == 0x0A else { throw .malformed("unexpected bytes after a boundary") }
        start = i + 2
        state = .headers
        return true
    }

    private mutating func readHeaders(into events: inout [Event]) throws(MultipartError) -> Bool {
        // An empty header block is just CRLF (RFC 2046 §5.1.1: "body-part := MIME-part-headers [CRLF *OCTET]").
        let end: Int
        if buffer.count - start >= 2, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
            end = start
        } else if let at = find([0x0D, 0x0A, 0x0D, 0x0A], from: start) {
            end = at + 2
        } else {
            if buffer.count - start > maxHeaderBytes { throw .headersTooLarge(limit: maxHeaderBytes) }
            return false
        }
        guard end - start <= maxHeaderBytes else { throw .headersTooLarge(limit: maxHeaderBytes) }
        events.append(.headers(try Self.parseHeaders(buffer[start..<end])))
        start = end + 2
        state = .body
        return true
    }

    private mutating func readBody(into events: inout [Event]) -> Bool {
        if let at = find(delimiter, from: start) {
            if at > start { events.append(.body(Array(buffer[start..<at]))) }
            events.append(.partEnd)
            start = at + delimiter.count
            state = .afterDelimiter
            return true
        }
        // Everything except a tail that could begin a delimiter is body.
        let safeEnd = max(start, buffer.count - (delimiter.count - 1))
        if safeEnd > start { events.append(.body(Array(buffer[start..<safeEnd]))) }
        start = safeEnd
        return false
    }

    /// Header lines are `name ":" value CRLF`; a line starting with space or tab
    /// continues the previous one (RFC 5322 §2.2.3, unfolding).
    public static func parseHeaders(_ block: ArraySlice<UInt8>) throws(MultipartError) -> MultipartHeaders {
        var fields: [(String, String)] = []
        let text = String(decoding: block, as: UTF8.self)
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            if let first = line.first, first == " " || first == "\t" {
                guard let last = fields.popLast() else { throw .malformed("header continuation without a field") }
                fields.append((last.0, last.1 + " " + line.trimmingSpaces()))
                continue
            }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformed("header line without a field name")
            }
            fields.append((String(line[..<colon]).trimmingSpaces(), line[line.index(after: colon)...].trimmingSpaces()))
        }
        return MultipartHeaders(fields)
    }

    private mutating func compact() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The index of `pattern` in `buffer[from...]`. glibc's `memmem`: a byte-at-a-time
    /// scan for the delimiter's first byte was most of the time spent parsing a multipart
    /// `_bulk_get` of attachments (its `\r` is common in binary data).
    private func find(_ pattern: [UInt8], from: Int) -> Int? {
        guard !pattern.isEmpty, buffer.count - from >= pattern.count else { return nil }
        return buffer.withUnsafeBytes { haystack -> Int? in
            pattern.withUnsafeBytes { needle -> Int? in
                guard let base = haystack.baseAddress, let found = memmem(base + from, haystack.count - from,
                                                                          needle.baseAddress, needle.count) else {
                    return nil
                }
                return UnsafeRawPointer(found) - base
            }
        }
    }
}

/// Why a multipart body was rejected; the handler answers 400 `bad_request`
/// (CouchDB: "Malformed multipart request" style reasons), 413 for the header limit.
public enum MultipartError: Error, Equatable, Sendable {
    /// The input ended before the close delimiter (`--boundary--`).
    case missingFinalBoundary
    /// Bytes that fit no rule of RFC 2046 §5.1.1, with a reason safe to show.
    case malformed(String)
    /// A part's header block exceeded the limit.
    case headersTooLarge(limit: Int)
}

extension MultipartReader {
    /// The `boundary` parameter of a multipart Content-Type, unquoted, e.g. from
    /// `multipart/related; boundary="abc"` or `multipart/mixed;boundary=abc`.
    ///
    /// Returns nil when the type is not `multipart/*`, the parameter is absent, or the
    /// boundary breaks RFC 2046 §5.1.1 (1 to 70 characters, not ending in a space).
    /// Parameter names are case-insensitive and values may be quoted strings with
    /// backslash escapes (RFC 9110 §5.6.4, §5.6.6).
    public static func boundary(fromContentType contentType: String) -> String? {
        var rest = Substring(contentType)
        let type = rest.prefix { $0 != ";" }
        guard type.trimmingSpaces().lowercased().hasPrefix("multipart/") else { return nil }
        rest = rest.dropFirst(type.count)
        while rest.first == ";" {
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            let name = rest.prefix { $0 != "=" && $0 != ";" }
            rest = rest.dropFirst(name.count)
            var value = ""
            if rest.first == "=" {
                rest = rest.dropFirst()
                value = rest.first == "\"" ? takeQuoted(&rest) : takeToken(&rest)
            }
            if name.trimmingSpaces().lowercased() == "boundary" {
                guard (1...70).contains(value.utf8.count), value.last != " " else { return nil }
                return value
            }
            rest = rest.drop { $0 != ";" }
        }
        return nil
    }

    private static func takeToken(_ rest: inout Substring) -> String {
        let token = rest.prefix { $0 != ";" }
        rest = rest.dropFirst(token.count)
        return token.trimmingSpaces()
    }

    private static func takeQuoted(_ rest: inout Substring) -> String {
        rest = rest.dropFirst()
        var value = ""
        while let c = rest.popFirst() {
            if c == "\"" { break }
            if c == "\\", let escaped = rest.popFirst() { value.append(escaped) } else { value.append(c) }
        }
        return value
    }
}

fileprivate extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's OWS, RFC 9110 §5.6.3).
    func trimmingSpaces() -> String {
        var s = Substring(String(self))
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
