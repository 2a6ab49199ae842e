import Foundation
import Testing
@testable import SetteeStore

@Suite struct BlobStoreTests {
    /// A fresh directory per test, removed when `body` returns.
    func withStore(_ body: (BlobStore, String) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("settee-blobs-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let dir = BlobStore.directory(forDatabaseFile: root + "/db.couch")
        try body(try BlobStore(directory: dir), dir)
    }

    /// The blob and temp files in `dir`: not the small blobs' `small.sqlite` (and its WAL)
    /// or their pack file.
    func files(in dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir)
            .filter { !$0.hasPrefix(SmallBlobFile.fileName) && $0 != BlobPackAppender.fileName }.sorted()
    }

    @Test func digestMatchesCouchDB() throws {
        // CouchDB 3.4.3 stub in spec/transcripts for the 6-byte note.txt (gzip'd, 26 bytes).
        let digest = try #require(AttachmentDigest(couchDigest: "md5-o+SDhDpExwGEDTfSblMNqQ=="))
        #expect(digest.couchDigest == "md5-o+SDhDpExwGEDTfSblMNqQ==")
        #expect(AttachmentDigest(hex: digest.hex) == digest)
        #expect(AttachmentDigest(couchDigest: "sha1-abc") == nil)
        #expect(AttachmentDigest(couchDigest: "md5-!!!") == nil)
        #expect(AttachmentDigest(hex: "xyz") == nil)
    }

    @Test func writeFinishRenamesToDigest() throws {
        try withStore { store, dir in
            let blob = try store.write(Array("hello".utf8))
            // MD5("hello") = 5d41402abc4b2a76b9719d911017c592
            #expect(blob.key.hex == "5d41402abc4b2a76b9719d911017c592")
            #expect(blob.digest == "md5-XUFAKrxLKna5cZ2REBfFkg==")
            #expect(blob.length == 5)
            #expect(try files(in: dir) == ["5d41402abc4b2a76b9719d911017c592"])
            #expect(store.contains(blob.key))
            #expect(try store.length(of: blob.key) == 5)
            #expect(try store.read(blob.key) == Array("hello".utf8))
        }
    }

    @Test func streamingWriteLeavesOnlyTempUntilFinish() throws {
        try withStore { store, dir in
            let writer = try store.makeWriter()
            try writer.write(Array(repeating: 7, count: 100_000))
            try writer.write([UInt8](repeating: 8, count: 5)[...])
            let pending = try files(in: dir)
            #expect(pending.count == 1 && pending[0].hasPrefix("tmp-"))
            let blob = try writer.finish()
            #expect(blob.length == 100_005)
            #expect(try files(in: dir) == [blob.key.hex])
        }
    }

    @Test func sameBytesStoredOnce() throws {
        try withStore { store, dir in
            let a = try store.write(Array("same".utf8))
            let b = try store.write(Array("same".utf8))
            #expect(a == b)
            #expect(try files(in: dir) == [a.key.hex])
            #expect(try store.keys() == [a.key])
        }
    }

    @Test func abortRemovesTemp() throws {
        try withStore { store, dir in
            let writer = try store.makeWriter()
            try writer.write([1, 2, 3])
            writer.abort()
            #expect(try files(in: dir).isEmpty)
        }
    }

    @Test func expectedDigestMismatchStoresNothing() throws {
        try withStore { store, dir in
            let writer = try store.makeWriter()
            try writer.write([1, 2, 3])
            let wrong = try #require(AttachmentDigest(hex: String(repeating: "0", count: 32)))
            #expect(throws: StoreError.self) { try writer.finish(expectedDigest: wrong) }
            let short = try store.makeWriter()
            try short.write([1, 2, 3])
            #expect(throws: StoreError.attachmentMismatch("expected 4 bytes, received 3")) {
                try short.finish(expectedLength: 4)
            }
            #expect(try files(in: dir).isEmpty)
        }
    }

    @Test func crashLeftoversAreSwept() throws {
        try withStore { store, dir in
            let kept = try store.write([9, 9])
            // What a kill -9 mid-write leaves: a temp file nobody will finish.
            #expect(FileManager.default.createFile(atPath: dir + "/tmp-deadbeef", contents: Data([1, 2])))
            #expect(FileManager.default.createFile(atPath: dir + "/tmp-0123", contents: Data()))
            #expect(try store.sweepTemporaryFiles() == 2)
            #expect(try files(in: dir) == [kept.key.hex])
            #expect(try store.keys() == [kept.key])
        }
    }

    /// Issue 47, item 3: a blob an upload stored, whose revision has not committed yet,
    /// is pinned, and the sweep keeps it (file or small) until the pin is released.
    @Test func compactionSweepKeepsPinnedBlobsUntilReleased() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("settee-pins-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let store = try BlobStore(directory: BlobStore.directory(forDatabaseFile: root + "/db.couch"))
        let file = try store.write(Array(repeating: 9, count: 5000))
        let smallBytes: [UInt8] = [8, 8]
        // The small file takes the key it is given (the upload computed it).
        let smallKey = try #require(AttachmentDigest(md5: Array(repeating: 0xAB, count: 16)))
        let smallPin = store.pins.pin(smallKey)
        try await store.storeSmall([(smallKey, smallBytes)])
        #expect(try store.sweep(keeping: []) == 0)
        #expect(store.contains(file.key) && store.contains(smallKey))
        file.pin?.release()
        smallPin.release()
        #expect(try store.sweep(keeping: []) == 2)
        #expect(try store.keys().isEmpty)
    }

    @Test func compactionSweepKeepsReferenced() throws {
        try withStore { store, dir in
            let a = try store.write([1]), b = try store.write([2]), c = try store.write([3])
            // Their revisions "committed": the uploads' holds end (`BlobPins`).
            for blob in [a, b, c] { blob.pin?.release() }
            let inFlight = try store.makeWriter()
            try inFlight.write([4])
            #expect(try store.sweep(keeping: [a.key, c.key]) == 1)
            #expect(!store.contains(b.key))
            #expect(try store.keys() == [a.key, c.key].sorted())
            _ = try inFlight.finish()  // a temp file survives the sweep
            try store.remove(a.key)
            try store.remove(a.key)  // absent: no error
            #expect(try store.keys().count == 2)
        }
    }

    @Test func rangeReadsInChunks() throws {
        try withStore { store, _ in
            let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }
            let blob = try store.write(bytes)
            let reader = try store.open(blob.key, range: 1_000..<2_500)
            #expect((reader as? BlobReader)?.blobLength == 10_000)
            var got: [UInt8] = []
            while let piece = try reader.read(maxLength: 400) {
                #expect(piece.count <= 400)
                got += piece
            }
            #expect(got == Array(bytes[1_000..<2_500]))
            #expect(try store.open(blob.key, range: 9_999..<10_000).read() == [bytes[9_999]])
            #expect(try store.open(blob.key, range: 5..<5).read() == nil)
            #expect(throws: StoreError.self) { try store.open(blob.key, range: 0..<10_001) }
        }
    }

    @Test func missingBlobIsNotFound() throws {
        try withStore { store, _ in
            let key = try #require(AttachmentDigest(hex: String(repeating: "a", count: 32)))
            #expect(throws: StoreError.attachmentNotFound(key.couchDigest)) { try store.open(key) }
            #expect(!store.contains(key))
            #expect(try store.length(of: key) == nil)
        }
    }

    @Test func readerOutlivesUnlink() throws {
        try withStore { store, _ in
            let blob = try store.write(Array("still here".utf8))
            let reader = try store.open(blob.key)
            try store.remove(blob.key)
            #expect(try reader.read() == Array("still here".utf8))
        }
    }
}
