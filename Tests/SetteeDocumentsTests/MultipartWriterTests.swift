import Synchronization
import Testing
@testable import SetteeDocuments

/// Collects what a writer sends.
final class Collector: Sendable {
    private let storage = Mutex<[[UInt8]]>([])
    var writes: [[UInt8]] { storage.withLock { $0 } }
    var all: [UInt8] { writes.flatMap { $0 } }
    var sink: MultipartWriter.Sink { { bytes in self.storage.withLock { $0.append(bytes) } } }
}

@Suite struct MultipartWriterTests {
    static let json = Array("{\"_id\":\"doc000003\"}".utf8)
    static let blob = (0..<2003).map { UInt8(truncatingIfNeeded: $0) }
    static let gzipped = [UInt8](repeating: 0x1F, count: 26)
    static let attachments = [
        MultipartWriter.AttachmentPart(name: "blob.bin", contentType: "application/octet-stream", length: 2003),
        MultipartWriter.AttachmentPart(name: "note.txt", contentType: "text/plain", length: 26, encoding: "gzip"),
    ]

    func writeDocument(boundary: String, to collector: Collector) async throws {
        var writer = MultipartWriter(boundary: boundary, sink: collector.sink)
        try await writer.writeJSONPart(Self.json)
        try await writer.beginAttachmentPart(Self.attachments[0])
        for start in stride(from: 0, to: Self.blob.count, by: 500) {  // streamed in pieces
            try await writer.writeBody(Array(Self.blob[start..<min(start + 500, Self.blob.count)]))
        }
        try await writer.beginAttachmentPart(Self.attachments[1])
        try await writer.writeBody(Self.gzipped)
        try await writer.finish()
    }

    /// Byte for byte the framing of the replicator's PUT in spec/transcripts.
    @Test func couchDBShape() async throws {
        let b = "ec31ddb841e4778f83c47c9ec084a064"
        let collector = Collector()
        try await writeDocument(boundary: b, to: collector)
        let expected = Array(("--\(b)\r\nContent-Type: application/json\r\n\r\n{\"_id\":\"doc000003\"}\r\n--\(b)\r\n"
            + "Content-Disposition: attachment; filename=\"blob.bin\"\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: 2003\r\n\r\n").utf8) + Self.blob + Array(("\r\n--\(b)\r\n"
            + "Content-Disposition: attachment; filename=\"note.txt\"\r\nContent-Type: text/plain\r\n"
            + "Content-Length: 26\r\nContent-Encoding: gzip\r\n\r\n").utf8) + Self.gzipped + Array("\r\n--\(b)--".utf8)
        #expect(collector.all == expected)
        #expect(collector.writes.allSatisfy { $0.count <= 600 })  // nothing was gathered whole
        let length = MultipartWriter.length(boundary: b, jsonLength: Self.json.count, attachments: Self.attachments)
        #expect(length == Int64(expected.count))
    }

    @Test func roundTripThroughReader() async throws {
        let boundary = MultipartWriter.randomBoundary()
        #expect(boundary.count == 32)
        let collector = Collector()
        try await writeDocument(boundary: boundary, to: collector)
        let parts = try parse(collector.all.map { [$0] }, boundary: boundary)
        #expect(parts.map(\.body) == [Self.json, Self.blob, Self.gzipped])
        #expect(parts[2].headers.last == "Content-Encoding: gzip")
    }

    /// `open_revs` with `Accept: multipart/mixed`: a multipart/related document inside
    /// a multipart/mixed part, as in the pull transcript.
    @Test func nestedMixedAroundRelated() async throws {
        let collector = Collector()
        var outer = MultipartWriter(boundary: "OUT", subtype: .mixed, sink: collector.sink)
        var inner = MultipartWriter(boundary: "IN", subtype: .related, sink: collector.sink)
        try await outer.beginPart([("Content-Type", inner.contentType)])
        try await inner.writeJSONPart(Array("{}".utf8))
        try await inner.writePart(headers: MultipartWriter.headers(for: Self.attachments[0]), body: [1, 2])
        try await inner.finish()
        try await outer.endPart()
        try await outer.writePart(headers: [("Content-Type", "application/json; error=\"true\"")],
                                  body: Array("{\"missing\":\"1-x\"}".utf8))
        try await outer.finish()
        let text = String(decoding: collector.all, as: UTF8.self)
        #expect(text.hasPrefix("--OUT\r\nContent-Type: multipart/related; boundary=\"IN\"\r\n\r\n--IN\r\n"))
        #expect(text.hasSuffix("\r\n--IN--\r\n--OUT\r\nContent-Type: application/json; error=\"true\"\r\n\r\n"
            + "{\"missing\":\"1-x\"}\r\n--OUT--"))
        let outerParts = try parse([collector.all], boundary: "OUT")
        #expect(outerParts.count == 2)
        let innerType = String(outerParts[0].headers[0].dropFirst("Content-Type: ".count))
        let innerBoundary = try #require(MultipartReader.boundary(fromContentType: innerType))
        let innerParts = try parse([outerParts[0].body], boundary: innerBoundary)
        #expect(innerParts.map(\.body) == [Array("{}".utf8), [1, 2]])
    }

    /// As CouchDB 3.4.3 writes them (checked on it: `filename="a "q" é/ü.txt"`), but a name
    /// cannot end the header line.
    @Test func fileNamesAreWrittenAsCouchDBWritesThemButCannotEndTheLine() {
        #expect(MultipartWriter.quotedStringContent("a \"b\"\\c\r\nd.txt") == "a \"b\"\\c%0D%0Ad.txt")
        #expect(MultipartWriter.quotedStringContent("plain é.txt") == "plain é.txt")
    }
}
