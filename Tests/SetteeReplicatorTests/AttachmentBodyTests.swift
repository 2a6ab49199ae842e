import Foundation
import SetteeDocuments
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// A local source's attachments travel as references into its store (read a piece
/// at a time), become spool files before an upload, and make the same multipart body
/// bytes a whole-in-memory attachment would.
@Suite struct AttachmentBodyTests {
    static let blob = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    static let notes = Array(String(repeating: "settee ", count: 4000).utf8)  // stored gzip'd

    /// A store whose database `a` has document `files` with both attachments; its revision.
    func source() async throws -> (ReplicatorStore, String) {
        let store = try ReplicatorStore()
        _ = try store.database("a")
        let files: JSONObject = [
            "_id": "files", "_rev": "1-11111111111111111111111111111111",
            "_revisions": ["start": 1, "ids": ["11111111111111111111111111111111"]],
            "_attachments": [
                "blob.bin": ["content_type": "application/octet-stream", "data": .string(Data(Self.blob).base64EncodedString())],
                "notes.txt": ["content_type": "text/plain", "data": .string(Data(Self.notes).base64EncodedString())],
            ],
        ]
        #expect(try await store.peer("a").write([TransferRevision(json: files)]).isEmpty)
        return (store, "1-11111111111111111111111111111111")
    }

    @Test func aLocalSourceHandsOutStoredAttachmentsInPieces() async throws {
        let (store, rev) = try await source()
        defer { store.remove() }
        let found = try await store.peer("a").revisions([RevisionRequest(id: "files", rev: rev, attsSince: [])])
        let blob = try #require(found.first?.attachments["blob.bin"])
        guard case .stored = blob.storage else { Issue.record("expected a stored attachment"); return }
        #expect(blob.length == Int64(Self.blob.count))
        var pieces: [Int] = []
        var bytes: [UInt8] = []
        try await blob.forEachPiece { pieces.append($0.count); bytes += $0 }
        #expect(bytes == Self.blob)
        #expect(pieces.count > 1 && pieces.allSatisfy { $0 <= AttachmentBody.pieceSize })
        // The gzip-stored one comes out as identity bytes, as its `length` says.
        let notes = try #require(found.first?.attachments["notes.txt"])
        #expect(try await notes.readAll() == Self.notes)
        #expect(notes.length == Int64(Self.notes.count))
    }

    @Test func anUploadSpoolsStoredBytesAndFramesThemAsCouchDBDoes() async throws {
        let (store, rev) = try await source()
        defer { store.remove() }
        let spool = try TempDirectory(prefix: "attachment-body")
        defer { spool.remove() }
        let revision = try #require(try await store.peer("a").revisions([RevisionRequest(id: "files", rev: rev,
                                                                                          attsSince: [])]).first)
        let (contentType, upload) = try await MultipartUpload.body(revision, spoolingIn: SpoolDirectory(path: spool.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
        var sent: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 70_000)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try upload.read(into: $0) }
            if n == 0 { break }
            sent += buffer[..<n]
        }
        #expect(Int64(sent.count) == upload.length)
        // The same body made from bytes in memory, as before the streaming.
        let boundary = try #require(MultipartReader.boundary(fromContentType: contentType))
        let collected = LockedBytes()
        var writer = MultipartWriter(boundary: boundary, subtype: .related) { collected.append($0) }
        try await writer.writeJSONPart(JSONWriter.serialize(.object(try revision.json())))
        for member in try revision.json()["_attachments"]?.objectValue ?? JSONObject() {
            let bytes = try await revision.attachments[member.key]?.readAll() ?? []
            try await writer.beginAttachmentPart(.init(name: member.key, contentType: member.value["content_type"]?
                .stringValue ?? "", length: Int64(bytes.count)))
            try await writer.writeBody(bytes)
            try await writer.endPart()
        }
        try await writer.finish()
        #expect(sent == collected.bytes)
    }
}

/// Bytes a `MultipartWriter` sink appends to.
final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [UInt8] = []
    func append(_ more: [UInt8]) { lock.withLock { stored += more } }
    var bytes: [UInt8] { lock.withLock { stored } }
}
