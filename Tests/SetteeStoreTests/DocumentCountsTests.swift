import Testing
@testable import SetteeStore

/// The running totals behind `GET /{db}` must always equal a scan of the rows.
@Suite struct DocumentCountsTests {
    /// Reads the stored totals and a fresh recount in one snapshot.
    private func both(_ db: Database) async throws -> (stored: DocumentCounts.Totals, recount: DocumentCounts.Totals) {
        try await db.readers.read { (try DocumentCounts.totals($0), try DocumentCounts.recount($0)) }
    }

    @Test func totalsFollowEditsDeletesConflictsAndStemming() async throws {
        let store = try TestStore(revsLimit: 3)
        defer { store.remove() }
        let db = try store.directory.create("db")

        guard case .success(let a1) = try await db.put("a", #"{"n":1}"#) else { Issue.record("put a"); return }
        _ = try await db.put("b", #"{"n":"two"}"#)
        #expect(try await both(db).stored == DocumentCounts.Totals(live: 2, deleted: 0, externalBytes: 7 + 11))

        // An edit replaces a leaf: the old body leaves the external size.
        guard case .success(let a2) = try await db.put("a", #"{"n":10}"#, base: a1) else { Issue.record("edit"); return }
        // A delete moves a document from live to deleted.
        _ = try await db.put("b", "{}", base: try await db.document(id: "b", revisions: .winner)?.tree.winner?.rev,
                             deleted: true)
        // Recreating a deleted document moves it back.
        _ = try await db.put("b", #"{"again":true}"#)
        // A replicated conflicting branch adds a leaf without changing the document count.
        _ = try await db.force("a", ["2-ffff", a1.description], #"{"branch":1}"#)
        // A long replicated history is stemmed to the limit of 3.
        _ = try await db.force("c", ["5-e", "4-d", "3-c", "2-b", "1-a"], #"{"deep":1}"#)
        // Writing a revision already present changes nothing.
        _ = try await db.force("c", ["5-e", "4-d"], #"{"deep":1}"#)
        // A conflict rejected for a stale base changes nothing.
        _ = try await db.put("a", "{}", base: a1)
        _ = a2

        let (stored, recount) = try await both(db)
        #expect(stored == recount)
        #expect(stored.live == 3 && stored.deleted == 0)
        let info = try await db.info()
        #expect(info.docCount == 3 && info.deletedDocCount == 0 && info.externalSize == recount.externalBytes)

        // Deleting every branch of `a` leaves it deleted.
        for leaf in try await db.document(id: "a", revisions: .allLeaves)?.tree.leaves ?? [] where !leaf.isDeleted {
            _ = try await db.put("a", "{}", base: leaf.rev, deleted: true)
        }
        let after = try await both(db)
        #expect(after.stored == after.recount)
        #expect(after.stored.live == 2 && after.stored.deleted == 1)
    }

    @Test func totalsSurviveCompactionAndAreSeededByTheMigration() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for index in 0..<20 {
            let base = try await db.document(id: "d\(index % 5)", revisions: .winner)?.tree.winner?.rev
            _ = try await db.put("d\(index % 5)", #"{"i":\#(index)}"#, base: base)
        }
        try await db.compact()
        let compacted = try await both(db)
        #expect(compacted.stored == compacted.recount)
        // Make the file look like schema 2 (before the totals existed): opening it again must seed them.
        try await db.writer.write { connection in
            try connection.run("DELETE FROM info WHERE key IN ('doc_count', 'doc_del_count', 'external_size')")
            try connection.execute("ALTER TABLE docs DROP COLUMN winner_seq")  // schema 5's
        }
        try await db.writer.withoutTransaction { try $0.execute("PRAGMA user_version = 2") }
        let reopened = try store.reopen()
        let again = try #require(try reopened.database(named: "db"))
        let afterReopen = try await both(again)
        #expect(afterReopen.stored == compacted.stored)
        #expect(afterReopen.stored.live == 5)
    }
}
