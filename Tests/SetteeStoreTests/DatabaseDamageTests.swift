internal import Foundation
import Glibc
@testable import SetteeStore
import Testing

/// Issue #47 item 4: a database whose WAL lost committed transactions is noticed at open
/// (its update sequence is behind the one recorded outside the WAL) and is read-only.
@Suite struct DatabaseDamageTests {
    @Test func checkComparesWithTheRecordedSequence() {
        #expect(DatabaseDamage.check(updateSequence: 5_000, recorded: nil, recordPath: "x") == nil)
        #expect(DatabaseDamage.check(updateSequence: 5_000, recorded: 5_000, recordPath: "x") == nil)
        // Ahead of the record: a power loss left the unsynced record behind; not damage.
        #expect(DatabaseDamage.check(updateSequence: 5_001, recorded: 5_000, recordPath: "x") == nil)
        let damage = DatabaseDamage.check(updateSequence: 2_000, recorded: 5_000, recordPath: "x")
        #expect(damage?.reason.contains("3000 committed updates are missing") == true)
    }

    @Test func commitsAreRecordedAndASoundReopenIsNotDamaged() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<5 { _ = try await db.put("d\(i)").get() }
        #expect(db.committedSequence.read() == 5)
        store.directory.closeAll()
        let again = try #require(try store.reopen().database(named: "db"))
        #expect(again.damage == nil)
        _ = try await again.put("d5").get()
        #expect(again.committedSequence.read() == 6)
    }

    /// The files of a running database copied as a crash would leave them (WAL not
    /// checkpointed), 16 bytes of a frame in the middle of the WAL changed, and opened.
    @Test func walThatLostCommitsOpensReadOnly() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<60 { _ = try await db.put("doc\(i)", #"{"i":\#(i)}"#).get() }
        let copy = try TestStore()
        defer { copy.remove() }
        let file = DatabaseFileName.file(for: "db")
        for suffix in ["", "-wal", CommittedSequenceFile.suffix] {
            try FileManager.default.copyItem(atPath: store.path + "/" + file + suffix, toPath: copy.path + "/" + file + suffix)
        }
        let wal = copy.path + "/" + file + "-wal"
        let walSize = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
        let frames = (walSize - 32) / (24 + 4096)
        try #require(frames > 4, "the WAL holds the commits")
        let handle = try #require(FileHandle(forUpdatingAtPath: wal))
        try handle.seek(toOffset: UInt64(32 + (frames / 2) * (24 + 4096) + 24 + 1_000))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 16))
        try handle.close()

        let damaged = try #require(try copy.reopen().database(named: "db"))
        let sequence = try await damaged.updateSequence()
        #expect(sequence < 60, "the damaged WAL was not rolled back (\(sequence))")
        #expect(damaged.damage?.reason.contains("behind 60") == true, "\(String(describing: damaged.damage))")
        #expect(try await damaged.info().damage != nil)
        // Read-only: writes fail with the reason; what is left still reads.
        await #expect(throws: StoreError.self) { _ = try await damaged.put("new") }
        #expect(try await damaged.document(id: "doc0", revisions: .winner) != nil)
    }

    /// 500 documents with 40 bytes of 0xFF written over the start of a page of records (its
    /// b-tree header and cell pointers), as a damaged disk block would leave them. (Bytes in
    /// a record's body are the body checksum's to find: BodyChecksumTests.)
    func damage(_ path: String) throws {
        var file = try Data(contentsOf: URL(fileURLWithPath: path))
        let middle = (file.count / 4096 / 2) * 4096
        file.replaceSubrange(middle..<middle + 40, with: Data(repeating: 0xFF, count: 40))
        try file.write(to: URL(fileURLWithPath: path))
    }

    func fill(_ store: TestStore) async throws -> String {
        let db = try store.directory.create("db")
        let body = String(repeating: "x", count: 200)
        for i in 0..<500 { _ = try await db.put("doc\(1000 + i)", #"{"v":"\#(body)"}"#).get() }
        store.directory.closeAll()
        return store.path + "/" + DatabaseFileName.file(for: "db")
    }

    /// A small file gets `PRAGMA quick_check` at open, which finds this page malformed; the
    /// mark it leaves keeps the database read-only after a restart too.
    @Test func malformedPageIsFoundAtOpenAndStaysMarked() async throws {
        let store = try TestStore()
        defer { store.remove() }
        try damage(try await fill(store))
        let damaged = try #require(try store.reopen().database(named: "db"))
        #expect(damaged.damage?.reason.contains("quick_check") == true, "\(String(describing: damaged.damage))")
        await #expect(throws: StoreError.self) { _ = try await damaged.put("new") }
        let later = try #require(try store.reopen().database(named: "db"))
        #expect(later.damage != nil, "the damage was forgotten across a reopen")
    }

    /// A scan that meets a malformed page marks the database read-only: here the page is
    /// damaged after the open passed (a larger file is not quick-checked at all).
    @Test func malformedPageMetByAScanMarksTheDatabase() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let path = try await fill(store)
        let opened = try #require(try store.reopen().database(named: "db"))
        #expect(opened.damage == nil, "sound at open")
        try damage(path)
        var query = AllDocsQuery()
        query.includeBodies = true
        await #expect(throws: StoreError.self) { try await opened.allDocs(query) }
        #expect(opened.damage?.reason.contains("a read found the file malformed") == true)
        await #expect(throws: StoreError.self) { _ = try await opened.put("new") }
    }
}
