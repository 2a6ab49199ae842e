internal import Foundation
import CSQLite
@testable import SetteeStore
import Testing

/// Issue #47 item 4: a document body changed inside the file (same length, as a flipped
/// byte or an edit leaves it) is not served with its old `_rev`: every read of a body checks
/// it against the checksum stored with it, and a mismatch marks the database damaged.
@Suite struct BodyChecksumTests {
    /// Rewrites the stored body of `id`'s winner behind the store's back, leaving its checksum.
    private func tamper(_ path: String, id: String, body: String) throws {
        var db: OpaquePointer?
        try #require(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        let sql = "UPDATE revs SET json = CAST('\(body)' AS BLOB) WHERE sequence = (SELECT winner_seq FROM docs WHERE docid = '\(id)')"
        try #require(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK)
        try #require(sqlite3_changes(db) == 1)
    }

    @Test func aChangedBodyIsRefusedEverywhereItIsRead() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let written = try store.directory.create("db")
        _ = try await written.put("a", #"{"secret":"aaaa"}"#).get()
        _ = try await written.put("b", #"{"other":1}"#).get()
        try await written.refreshIndex(KeyIndex(signature: "0c5c") { document in
            [KeyIndexEntry(key: Array(document.id.utf8), value: [])]
        })
        #expect(try await written.winner(id: "a")?.body == Array(#"{"secret":"aaaa"}"#.utf8))
        // Changed while no server has it open, as the issue's probe did.
        store.directory.closeAll()
        try tamper(store.path + "/" + DatabaseFileName.file(for: "db"), id: "a", body: #"{"secret":"bbbb"}"#)
        let db = try #require(try store.reopen().database(named: "db"))

        await #expect(throws: (any Error).self) { _ = try await db.winner(id: "a") }
        #expect(db.damage != nil, "the mismatch marks the database damaged")
        var query = AllDocsQuery()
        query.includeBodies = true
        await #expect(throws: (any Error).self) { _ = try await db.allDocs(query) }
        // A body that still matches reads as before.
        #expect(try await db.winner(id: "b")?.body == Array(#"{"other":1}"#.utf8))
        // `settee check` names the document and revision.
        let report = try DatabaseCheck.run("db", in: store.directory, repair: false)
        let rev = RevisionHasher.child(of: nil, isDeleted: false, body: Array(#"{"secret":"aaaa"}"#.utf8))
        #expect(report.problems.contains("document bodies: 1 do not match their checksum: a \(rev)"), "\(report.problems)")
        // A repair cannot bring the body back; it rebuilds what derives from the documents.
        store.directory.closeAll()
        let repair = try DatabaseCheck.run("db", in: try store.reopen(), repair: true)
        #expect(repair.lost.contains { $0.hasPrefix("body of a \(rev)") }, "\(repair.lost)")
        #expect(repair.repaired.contains("1 view and Mango indexes dropped; each is rebuilt by its next query"),
                "\(repair.repaired)")
    }

    @Test func bodiesWithoutAChecksumReadUnchecked() async throws {
        #expect(BodyChecksum.of(nil) == nil)
        #expect(BodyChecksum.of(Array("{}".utf8)) == BodyChecksum.of(Array("{}".utf8)))
        #expect(BodyChecksum.of(Array("{}".utf8)) != BodyChecksum.of(Array("{ }".utf8)))
        let store = try TestStore()
        defer { store.remove() }
        let written = try store.directory.create("db")
        _ = try await written.put("a", #"{"n":1}"#).get()
        store.directory.closeAll()
        // As a file written before the column: no checksum, so nothing to compare.
        var raw: OpaquePointer?
        try #require(sqlite3_open_v2(store.path + "/" + DatabaseFileName.file(for: "db"), &raw, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        try #require(sqlite3_exec(raw, "UPDATE revs SET crc = NULL, json = CAST('{\"n\":2}' AS BLOB)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close_v2(raw)
        let db = try #require(try store.reopen().database(named: "db"))
        #expect(try await db.winner(id: "a")?.body == Array(#"{"n":2}"#.utf8))
        #expect(db.damage == nil)
    }
}
