/// Writes multipart bodies in CouchDB's exact byte shape, part by part, to an async
/// sink, so that attachment bytes stream through and never sit in memory whole.
///
/// CouchDB's shape (`couch_httpd_multipart:encode_multipart_stream`, and the
/// replicator transcripts in `spec/transcripts`):
///
///     --B\r\nContent-Type: application/json\r\n\r\n{json}
///     \r\n--B\r\nContent-Disposition: attachment; filename="a.bin"\r\n
///     Content-Type: application/octet-stream\r\nContent-Length: 2003\r\n\r\n<bytes>
///     \r\n--B--
///
/// i.e. the standard RFC 2046 §5.1.1 framing with no preamble, no epilogue, and no
/// CRLF after the close delimiter. Attachment part headers come in the order
/// Content-Disposition, Content-Type, Content-Length, then Content-Encoding only for
/// gzip-stored attachments, which travel still encoded (Content-Length is then the
/// encoded length).
///
/// Nesting (`open_revs` answers `multipart/mixed` whose parts are
/// `multipart/related` documents): begin the outer part with the inner writer's
/// `contentType`, run an inner writer over the same sink, then end the outer part.
public struct MultipartWriter: Sendable {
    /// Where bytes go: a response body writer's `write`, or a collector in tests.
    public typealias Sink = @Sendable ([UInt8]) async throws -> Void

    public enum Subtype: String, Sendable { case related, mixed }

    /// One attachment part's headers, as CouchDB sends them.
    public struct AttachmentPart: Sendable, Equatable {
        public var name: String
        public var contentType: String
        /// The byte count of the part body: `encoded_length` when `encoding` is set.
        public var length: Int64
        /// `"gzip"` for attachments sent still compressed; nil for identity.
        public var encoding: String?

        public init(name: String, contentType: String, length: Int64, encoding: String? = nil) {
            self.name = name
            self.contentType = contentType
            self.length = length
            self.encoding = encoding
        }
    }

    public enum State: Sendable { case initial, inPart, betweenParts, finished }

    public let boundary: String
    public let subtype: Subtype
    private let sink: Sink
    public private(set) var state = State.initial

    public init(boundary: String = MultipartWriter.randomBoundary(), subtype: Subtype = .related, sink: @escaping Sink) {
        precondition((1...70).contains(boundary.utf8.count), "RFC 2046 §5.1.1: boundary is 1 to 70 characters")
        self.boundary = boundary
        self.subtype = subtype
        self.sink = sink
    }

    /// The Content-Type for this body, e.g. `multipart/related; boundary="B"`.
    public var contentType: String { "multipart/\(subtype.rawValue); boundary=\"\(boundary)\"" }

    /// 32 random hex digits, the form CouchDB uses (`couch_uuids:random()`); random
    /// enough that it cannot plausibly occur inside attachment bytes.
    public static func randomBoundary() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Starts a part with `headers` (in order). Ends the previous part if one is open.
    public mutating func beginPart(_ headers: [(String, String)]) async throws {
        precondition(state != .finished, "MultipartWriter.beginPart after finish")
        if state == .inPart { try await endPart() }
        var head = state == .initial ? "--" + boundary : ""
        for (name, value) in headers { head += "\r\n\(name): \(value)" }
        head += "\r\n\r\n"
        state = .inPart
        try await sink(Array(head.utf8))
    }

    /// Appends bytes to the open part's body.
    public func writeBody(_ bytes: [UInt8]) async throws {
        precondition(state == .inPart, "MultipartWriter.writeBody outside a part")
        if !bytes.isEmpty { try await sink(bytes) }
    }

    /// Ends the open part with the delimiter that precedes the next part or the close.
    public mutating func endPart() async throws {
        precondition(state == .inPart, "MultipartWriter.endPart outside a part")
        state = .betweenParts
        try await sink(Array("\r\n--\(boundary)".utf8))
    }

    /// Writes the close delimiter (`--B--`), ending any open part.
    public mutating func finish() async throws {
        precondition(state != .finished && state != .initial, "MultipartWriter.finish needs at least one part")
        if state == .inPart { try await endPart() }
        state = .finished
        try await sink(Array("--".utf8))
    }

    /// A whole part from bytes in memory.
    public mutating func writePart(headers: [(String, String)], body: [UInt8]) async throws {
        try await beginPart(headers)
        try await writeBody(body)
        try await endPart()
    }

    /// The document part: `Content-Type: application/json` and the JSON bytes.
    public mutating func writeJSONPart(_ json: [UInt8]) async throws {
        try await writePart(headers: [("Content-Type", "application/json")], body: json)
    }

    /// Starts an attachment part; write exactly `part.length` body bytes next.
    public mutating func beginAttachmentPart(_ part: AttachmentPart) async throws {
        try await beginPart(Self.headers(for: part))
    }

    /// An attachment part's headers in CouchDB's order (`couch_httpd_multipart:atts_to_mp`).
    public static func headers(for part: AttachmentPart) -> [(String, String)] {
        var headers = [
            ("Content-Disposition", "attachment; filename=\"\(quotedStringContent(part.name))\""),
            ("Content-Type", part.contentType),
            ("Content-Length", String(part.length)),
        ]
        if let encoding = part.encoding { headers.append(("Content-Encoding", encoding)) }
        return headers
    }

    /// The exact byte length of a document written as JSON part plus attachment parts
    /// (for the `Content-Length` of a replicator-style `PUT`, as CouchDB's
    /// `len_doc_to_multi_part_stream` computes it).
    public static func length(boundary: String, jsonLength: Int, attachments: [AttachmentPart]) -> Int64 {
        let delimiter = Int64(4 + boundary.utf8.count)  // "\r\n--B" (or "--B" + "\r\n" of the first headers)
        var total = delimiter + Int64("\r\nContent-Type: application/json\r\n\r\n".utf8.count + jsonLength) - 2
        for part in attachments {
            total += delimiter
            // "\r\nName: value" per header, then "\r\n\r\n".
            total += Int64(headers(for: part).reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }) + 4
            total += part.length
        }
        return total + delimiter + 2
    }

    /// A file name as CouchDB 3.4.3 writes it between the quotes: raw, quotes and
    /// backslashes included (couch_doc:atts_to_mp/4; clients match parts by order, not
    /// by name), except CR and LF, which would end the header and let a name forge
    /// others: those are percent-encoded (CouchDB writes them raw too).
    public static func quotedStringContent(_ name: String) -> String {
        var out = ""
        for c in name.unicodeScalars {
            switch c {
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
