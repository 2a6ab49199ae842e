internal import Foundation
import Glibc
@testable import SetteeStore
import Testing

/// Damaged attachment bytes are refused, never handed out as the attachment: a blob
/// file, a blob in the pack file and a small blob row of `small.sqlite`, each with one
/// byte changed on disk (issue #47, item 4).
@Suite struct BlobVerificationTests {
    /// A row (under 16 KiB), a packed blob (16 KiB up to the 100 KiB inline limit), a file.
    static let sizes = (row: 2_000, packed: 20_000, file: 300_000)

    func pattern(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &+ $0 >> 8) }
    }

    /// Stores `bytes` as attachment `a.bin` of document `id`, returning its stub.
    func attach(_ db: Database, _ id: String, _ bytes: [UInt8]) async throws -> StoredAttachment {
        let stored = try await db.storeAttachment(name: "a.bin", contentType: "application/octet-stream", bytes: bytes)
        _ = try await db.update([DocumentUpdate(id: id, body: Array("{}".utf8), attachments: [.new(stored)])],
                                newEdits: true)[0].get()
        return try #require(try await db.document(id: id, revisions: .winner)?.revisions.first?.attachments.first)
    }

    /// What a download hands out before it ends or throws, and what it threw.
    func drain(_ download: AttachmentDownload) async -> (bytes: Int, error: (any Error)?) {
        var count = 0
        do {
            while let piece = try await download.next() { count += piece.count }
            return (count, nil)
        } catch {
            return (count, error)
        }
    }

    func isDamage(_ error: (any Error)?) -> Bool {
        if case .attachmentDamaged? = error as? StoreError { return true }
        return false
    }

    func flipByte(in path: String, at offset: Int64) throws {
        let fd = open(path, O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        var byte: UInt8 = 0
        try #require(pread(fd, &byte, 1, off_t(offset)) == 1)
        byte ^= 0xFF
        try #require(pwrite(fd, &byte, 1, off_t(offset)) == 1)
    }

    @Test func damagedFileBlobEndsShortAndRangeIsRefused() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let attachment = try await attach(db, "f", pattern(Self.sizes.file, seed: 1))
        // An intact blob beside it reads whole, and a range of it too.
        let intact = try await attach(db, "g", pattern(Self.sizes.file, seed: 9))
        let read = await drain(try await db.openAttachment(intact))
        #expect(read.bytes == Self.sizes.file && read.error == nil)
        #expect(await drain(try await db.openAttachment(intact, range: 5..<105)).bytes == 100)
        try flipByte(in: db.blobs.path(for: attachment.digest), at: 150_000)
        let whole = await drain(try await db.openAttachment(attachment))
        #expect(isDamage(whole.error), "\(String(describing: whole.error))")
        #expect(whole.bytes < Self.sizes.file, "a damaged blob must never be handed out whole")
        // A range of a blob this small is checked whole first.
        await #expect(throws: StoreError.self) { try await db.openAttachment(attachment, range: 10..<20) }
    }

    @Test func damagedRangeOfNeverReadFileIsRefused() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let attachment = try await attach(db, "f", pattern(Self.sizes.file, seed: 2))
        try flipByte(in: db.blobs.path(for: attachment.digest), at: 200_000)
        do {
            _ = try await db.openAttachment(attachment, range: 0..<10)
            Issue.record("a range of a damaged blob was served")
        } catch {
            #expect(isDamage(error), "\(error)")
        }
    }

    @Test func damagedPackedBlobIsRefused() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let attachment = try await attach(db, "p", pattern(Self.sizes.packed, seed: 3))
        let directory = BlobStore.directory(forDatabaseFile: db.path)
        let small = try Connection(path: directory + "/" + SmallBlobFile.fileName)
        let offset = try #require(try small.integer("SELECT offset FROM packed WHERE digest = ?", [.blob(attachment.digest.md5)]))
        small.close()
        try flipByte(in: directory + "/" + BlobPackAppender.fileName, at: offset + 5_000)
        for range in [nil, 0..<10] as [Range<Int64>?] {
            do {
                _ = try await db.openAttachment(attachment, range: range)
                Issue.record("a damaged packed blob was opened (range \(String(describing: range)))")
            } catch {
                #expect(isDamage(error), "\(error)")
            }
        }
    }

    @Test func damagedSmallBlobRowIsRefused() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        var bytes = pattern(Self.sizes.row, seed: 4)
        let attachment = try await attach(db, "r", bytes)
        bytes[700] ^= 0xFF
        // The row's bytes changed underneath (SQLite pages carry no checksum; a flipped
        // byte in a page reads back as this does).
        let small = try Connection(path: BlobStore.directory(forDatabaseFile: db.path) + "/" + SmallBlobFile.fileName)
        try small.run("UPDATE blobs SET data = ? WHERE digest = ?", [.blob(bytes), .blob(attachment.digest.md5)])
        small.close()
        do {
            _ = try await db.openAttachment(attachment)
            Issue.record("a damaged small blob was opened")
        } catch {
            #expect(isDamage(error), "\(error)")
        }
        // Inline `data` (`?attachments=true`) reads the same way.
        let inline = try? await db.attachmentData(attachment)
        #expect(inline == nil, "a damaged small blob was read as inline data")
    }

    /// A revision's blob that is gone (here its file removed; a damaged `small.sqlite-wal`
    /// frame drops rows the same way) is damage, not a 404 "missing attachment".
    @Test func lostBlobIsDamage() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let attachment = try await attach(db, "f", pattern(Self.sizes.file, seed: 5))
        try FileManager.default.removeItem(atPath: db.blobs.path(for: attachment.digest))
        do {
            _ = try await db.openAttachment(attachment)
            Issue.record("a lost blob was opened")
        } catch {
            #expect(isDamage(error), "\(error)")
        }
    }
}

