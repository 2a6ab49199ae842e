internal import Foundation
@testable import SetteeStore
import Testing

@Suite struct DatabaseAttachmentsTests {
    /// The two places a blob can be kept: the database file (the default for small
    /// ones) and one file each (`inlineAttachmentLimit` 0).
    static let storageForms: [Int?] = [nil, 0]

    func withDatabase(inlineAttachmentLimit: Int? = nil, _ body: (Database) async throws -> Void) async throws {
        let store = try TestStore(inlineAttachmentLimit: inlineAttachmentLimit)
        defer { store.remove() }
        try await body(try store.directory.create("db"))
    }

    func put(_ db: Database, _ id: String, base: RevisionID? = nil, _ attachments: [AttachmentUpdate],
             body: String = "{}") async throws -> Result<RevisionID, StoreError> {
        try await db.update([DocumentUpdate(id: id, body: bytes(body), baseRevision: base,
                                            attachments: attachments)], newEdits: true)[0]
    }

    func attachments(_ db: Database, _ id: String) async throws -> [StoredAttachment] {
        try await db.document(id: id, revisions: .winner)?.revisions.first?.attachments ?? []
    }

    @Test func newAttachmentGetsRevposAndStubKeepsIt() async throws {
        try await withDatabase { db in
            let a = try await db.storeAttachment(name: "a.bin", contentType: "application/octet-stream",
                                                 bytes: [1, 2, 3])
            let rev1 = try await put(db, "d", [.new(a)]).get()
            let stored = try await attachments(db, "d")
            #expect(stored.map(\.name) == ["a.bin"])
            #expect(stored.first?.revpos == 1 && stored.first?.length == 3 && stored.first?.encoding == nil)
            let rev2 = try await put(db, "d", base: rev1, [.stub(name: "a.bin", digest: nil)], body: #"{"v":2}"#).get()
            #expect(try await attachments(db, "d").first?.revpos == 1)
            _ = try await put(db, "d", base: rev2, [], body: #"{"v":3}"#).get()
            #expect(try await attachments(db, "d").isEmpty)
        }
    }

    @Test func unknownStubIsMissingStubAndStoresNothing() async throws {
        try await withDatabase { db in
            let rev1 = try await db.put("d").get()
            let result = try await put(db, "d", base: rev1, [.stub(name: "nope", digest: nil)])
            guard case .failure(.missingStub) = result else { Issue.record("expected missingStub: \(result)"); return }
            #expect(try await db.document(id: "d", revisions: .winner)?.tree.winner?.rev == rev1)
        }
    }

    /// couch_att:merge_stubs/2 matches a stub by name and revpos: CouchDB 3.4.3 answers 412
    /// missing_stub for `{"stub": true, "revpos": 10}` on an attachment of revpos 1
    /// (attachments_test.exs, COUCHDB-809); the right revpos, or none, keeps it.
    @Test func stubWithAnotherRevposIsMissingStub() async throws {
        try await withDatabase { db in
            let a = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [1])
            let rev1 = try await put(db, "d", [.new(a)]).get()
            let wrong = try await put(db, "d", base: rev1, [.stub(name: "a", digest: nil, revpos: 10)])
            guard case .failure(.missingStub(_, "a")) = wrong else { Issue.record("expected missingStub: \(wrong)"); return }
            let rev2 = try await put(db, "d", base: rev1, [.stub(name: "a", digest: nil, revpos: 1)]).get()
            #expect(try await attachments(db, "d").first?.revpos == 1 && rev2.generation == 2)
        }
    }

    @Test func attachmentsChangeTheRevisionID() async throws {
        try await withDatabase { db in
            let a = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [1])
            let plain = try await db.put("p").get()
            let with = try await put(db, "q", [.new(a)]).get()
            #expect(plain.suffix != with.suffix)
        }
    }

    @Test(arguments: storageForms) func identicalBytesShareOneBlob(inlineLimit: Int?) async throws {
        try await withDatabase(inlineAttachmentLimit: inlineLimit) { db in
            let a = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: Array(repeating: 7, count: 100))
            let b = try await db.storeAttachment(name: "b", contentType: "x/y", bytes: Array(repeating: 7, count: 100))
            _ = try await put(db, "d", [.new(a), .new(b)]).get()
            #expect(a.digest == b.digest)
            #expect(try db.blobs.keys() == [a.digest])
        }
    }

    @Test(arguments: storageForms) func compressibleTypesAreStoredGzipped(inlineLimit: Int?) async throws {
        try await withDatabase(inlineAttachmentLimit: inlineLimit) { db in
            let text = Array(String(repeating: "hello attachment ", count: 50).utf8)
            let a = try await db.storeAttachment(name: "t.txt", contentType: "text/plain", bytes: text)
            _ = try await put(db, "d", [.new(a)]).get()
            #expect(a.encoding == "gzip" && a.length == Int64(text.count) && a.encodedLength < a.length)
            let download = try await db.openAttachment(a)
            let stored = try await download.readAll()
            download.close()
            // The digest is the MD5 of the stored (compressed) bytes, as CouchDB's.
            #expect(try db.blobs.write(stored).key == a.digest)
            #expect(try await db.attachmentData(a) == text)
        }
    }

    @Test func smallAttachmentsAreRowsOfOneFileAndLargeOnesFilesOfTheirOwn() async throws {
        let store = try TestStore(inlineAttachmentLimit: 1_000)
        defer { store.remove() }
        let db = try store.directory.create("db")
        let small = try await db.storeAttachment(name: "s", contentType: "x/y", bytes: Array(repeating: 1, count: 1_000))
        let large = try await db.storeAttachment(name: "l", contentType: "x/y", bytes: Array(repeating: 2, count: 1_001))
        // A small one waits for the write naming it; a large one is a file already (fsync'd by `finish`).
        #expect(try db.blobs.keys() == [large.digest])
        _ = try await put(db, "d", [.new(small), .new(large)]).get()
        #expect(try db.blobs.keys() == [small.digest, large.digest].sorted())
        let files = try FileManager.default.contentsOfDirectory(atPath: db.blobs.directory)
        #expect(files.filter { AttachmentDigest(hex: $0) != nil } == [large.digest.hex])
        // Both read back whole and by range, from a reopened store (the row was committed).
        let reopened = try store.reopen()
        guard let again = try reopened.database(named: "db") else { Issue.record("db gone"); return }
        #expect(try await again.attachmentData(small) == Array(repeating: 1, count: 1_000))
        #expect(try await again.attachmentData(large) == Array(repeating: 2, count: 1_001))
        let range = try await again.openAttachment(small, range: 10..<20)
        #expect(try await range.readAll() == Array(repeating: 1, count: 10))
        await #expect(throws: StoreError.self) { _ = try await again.openAttachment(small, range: 10..<1_001) }
    }

    @Test func theSmallBlobFileIsMadeByTheFirstSmallAttachment() async throws {
        try await withDatabase { db in
            let small = db.blobs.directory + "/" + SmallBlobFile.fileName
            _ = try await db.put("plain").get()
            #expect(try db.blobs.keys().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: small))
            let a = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [1, 2])
            _ = try await put(db, "d", [.new(a)]).get()
            #expect(FileManager.default.fileExists(atPath: small))
            #expect(try await db.attachmentData(a) == [1, 2])
        }
    }

    @Test func aRefusedWritesSmallBlobGoesAtTheNextCompaction() async throws {
        try await withDatabase { db in
            let a = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [5, 6, 7])
            _ = try await db.put("d").get()
            // A conflict: the revision is refused; its blob, stored before the job, names nothing.
            guard case .failure(.conflict) = try await put(db, "d", [.new(a)]) else {
                Issue.record("expected a conflict")
                return
            }
            #expect(try db.blobs.keys() == [a.digest])
            try await db.compact()
            #expect(try db.blobs.keys().isEmpty)
            await #expect(throws: StoreError.self) { _ = try await db.attachmentData(a) }
        }
    }

    @Test(arguments: storageForms) func compactionSweepsUnreferencedBlobsAndOldRows(inlineLimit: Int?) async throws {
        try await withDatabase(inlineAttachmentLimit: inlineLimit) { db in
            let old = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [1, 1])
            let new = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [2, 2])
            let orphan = try await db.storeAttachment(name: "o", contentType: "x/y", bytes: [3])
            let rev1 = try await put(db, "d", [.new(old)]).get()
            _ = try await put(db, "d", base: rev1, [.new(new)]).get()
            // An attachment dropped by the next edit is named only by a non-leaf revision.
            let orphanRev = try await put(db, "o", [.new(orphan)]).get()
            _ = try await put(db, "o", base: orphanRev, []).get()
            try await db.compact()
            #expect(try db.blobs.keys() == [new.digest])
            let first = try await db.document(id: "d", revisions: .revision(rev1))?.revisions.first
            #expect(first?.attachments.isEmpty == true)
        }
    }

    @Test func replicatedStubsResolveAgainstAncestorsOrDigest() async throws {
        try await withDatabase { db in
            let a = try await db.storeAttachment(name: "a", contentType: "x/y", bytes: [9])
            var first = DocumentUpdate(id: "d", body: bytes("{}"), history: [rev("1-aa")], attachments: [.new(a)])
            // As `AttachmentParser` does for a replicated write: the upload's value with the sender's revpos.
            var replicated = a
            replicated.revpos = 1
            first.attachments = [.new(replicated)]
            _ = try await db.update([first], newEdits: false)[0].get()
            let child = DocumentUpdate(id: "d", body: bytes("{}"), history: [rev("2-bb"), rev("1-aa")],
                                       attachments: [.stub(name: "a", digest: nil)])
            _ = try await db.update([child], newEdits: false)[0].get()
            #expect(try await attachments(db, "d").first?.revpos == 1)
            let branch = DocumentUpdate(id: "d", body: bytes("{}"), history: [rev("2-cc"), rev("1-zz")],
                                        attachments: [.stub(name: "a", digest: a.digest)])
            _ = try await db.update([branch], newEdits: false)[0].get()
            let orphanStub = DocumentUpdate(id: "e", body: bytes("{}"), history: [rev("1-ee")],
                                            attachments: [.stub(name: "a", digest: a.digest)])
            guard case .failure(.missingStub) = try await db.update([orphanStub], newEdits: false)[0] else {
                Issue.record("a stub on a new document must be missing_stub")
                return
            }
        }
    }

    @Test(arguments: storageForms) func mismatchedUploadStoresNothing(inlineLimit: Int?) async throws {
        try await withDatabase(inlineAttachmentLimit: inlineLimit) { db in
            let upload = try await db.makeAttachmentUpload(contentType: "x/y")
            try await upload.write([1, 2, 3])
            await #expect(throws: StoreError.self) {
                _ = try await upload.finish(name: "a", contentType: "x/y", expectedLength: 4)
            }
            let aborted = try await db.makeAttachmentUpload(contentType: "x/y")
            try await aborted.write([4, 5])
            await aborted.abort()
            #expect(try db.blobs.keys().isEmpty)
            // No blob file and no temp file (only the small blobs' database).
            let entries = try FileManager.default.contentsOfDirectory(atPath: db.blobs.directory)
            #expect(entries.filter { !$0.hasPrefix(SmallBlobFile.fileName) }.isEmpty)
        }
    }
}
