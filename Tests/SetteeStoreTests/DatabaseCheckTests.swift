internal import Foundation
import Glibc
@testable import SetteeStore
import Testing

/// `settee check`'s store side: a sound database passes; a blob with a changed byte and
/// a sequence behind the committed one are reported, and `--repair` accepts the sequence
/// and reports what is lost.
@Suite struct DatabaseCheckTests {
    func attach(_ db: Database, _ id: String, _ bytes: [UInt8]) async throws -> StoredAttachment {
        let stored = try await db.storeAttachment(name: "a.bin", contentType: "application/octet-stream", bytes: bytes)
        _ = try await db.update([DocumentUpdate(id: id, body: Array("{}".utf8), attachments: [.new(stored)])],
                                newEdits: true)[0].get()
        return try #require(try await db.document(id: id, revisions: .winner)?.revisions.first?.attachments.first)
    }

    @Test func soundDatabasePasses() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await attach(db, "d", (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 3) })
        _ = try await attach(db, "e", (0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 5) })
        store.directory.closeAll()
        let report = try DatabaseCheck.run("db", in: try store.reopen(), repair: false)
        #expect(report.isSound, "\(report.problems)")
        #expect(throws: StoreError.self) { try DatabaseCheck.run("nope", in: try store.reopen(), repair: false) }
    }

    @Test func damagedBlobAndLostUpdatesAreReportedAndRepairAcceptsTheSequence() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let file = try await attach(db, "big", (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 >> 8) })
        let blobPath = db.blobs.path(for: file.digest)
        let record = db.committedSequence
        store.directory.closeAll()
        let fd = open(blobPath, O_RDWR)
        try #require(fd >= 0)
        var byte: UInt8 = 0x55
        _ = pwrite(fd, &byte, 1, 1_234)
        close(fd)
        // As if 40 committed updates had been lost from the WAL.
        record.record(41)

        let found = try DatabaseCheck.run("db", in: try store.reopen(), repair: false)
        #expect(found.problems.contains { $0.contains("document big attachment a.bin") && $0.contains("damaged") })
        #expect(found.problems.contains { $0.contains("40 committed updates are missing") })
        #expect(found.repaired.isEmpty && found.lost.isEmpty)

        let repaired = try DatabaseCheck.run("db", in: try store.reopen(), repair: true)
        #expect(repaired.lost.contains { $0.contains("document big attachment a.bin") })
        #expect(repaired.lost.contains { $0.contains("updates 2 to 41") })
        #expect(record.read() == 1)
        // Repaired: the database opens writable again; the lost attachment stays reported.
        let again = try #require(try store.reopen().database(named: "db"))
        #expect(again.damage == nil)
        _ = try await again.put("after").get()
        let after = try DatabaseCheck.run("db", in: try store.reopen(), repair: false)
        #expect(after.problems.count == 1, "\(after.problems)")
    }

    /// The server's damage mark is reported, and a repair removes it once the file passes.
    @Test func repairRemovesTheDamageMarkOfASoundFile() async throws {
        let store = try TestStore()
        defer { store.remove() }
        _ = try await store.directory.create("db").put("d").get()
        store.directory.closeAll()
        let path = store.path + "/" + DatabaseFileName.file(for: "db")
        DamageMarker.write(DatabaseDamage(reason: "a read found the file malformed"), databasePath: path)
        #expect(try store.reopen().database(named: "db")?.damage != nil)
        store.directory.closeAll()
        let found = try DatabaseCheck.run("db", in: try store.reopen(), repair: false)
        #expect(found.problems == ["marked damaged by the server: a read found the file malformed"])
        let repaired = try DatabaseCheck.run("db", in: try store.reopen(), repair: true)
        #expect(repaired.repaired.contains { $0.contains("damage mark removed") } && repaired.lost.isEmpty)
        let again = try #require(try store.reopen().database(named: "db"))
        #expect(again.damage == nil)
        _ = try await again.put("e").get()
    }
}

