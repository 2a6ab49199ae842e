@testable import SetteeStore
import SetteeTestSupport
import Testing

/// `Database.winner(id:)` reads the winner through `docs.winner_seq` instead of the
/// tree: it must always return what the tree read returns for its winner.
@Suite struct WinnerReadTests {
    /// Random edits, deletes, recreations, replicated conflicting branches, stemming
    /// (revs_limit 3), attachments and compaction, on a few ids: after each round every
    /// id's winner read equals the tree read's winner, and no `docs` row points at a
    /// revision row other than its winner.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func theWinnerReadMatchesTheTreeRead(seed: UInt64) async throws {
        let store = try TestStore(revsLimit: 3)
        defer { store.remove() }
        let db = try store.directory.create("db")
        var random = SplitMix(state: seed)
        let attachment = try await db.storeAttachment(name: "a.txt", contentType: "text/plain", bytes: [1, 2, 3])
        let ids = (0..<12).map { "d\($0)" }
        for round in 0..<8 {
            for _ in 0..<40 {
                let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                try await Self.randomWrite(id, db, attachment: attachment, &random)
            }
            if round % 3 == 2 { try await db.compact() }
            for id in ids + ["never-written"] {
                try await Self.expectSameWinner(id, db)
            }
            #expect(try await Self.rowsNotPointingAtTheirWinner(db) == 0)
        }
    }

    /// Files of schema 4 have no `winner_seq`: the migration fills it from the rows.
    @Test func theMigrationFillsWinnerSeq() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        var random = SplitMix(state: 7)
        let attachment = try await db.storeAttachment(name: "a.txt", contentType: "text/plain", bytes: [1])
        for _ in 0..<60 {
            try await Self.randomWrite("d\(Int.random(in: 0..<8, using: &random))", db, attachment: attachment, &random)
        }
        // Make the file what schema 4 wrote: no `winner_seq` column.
        try await db.writer.write { try $0.execute("ALTER TABLE docs DROP COLUMN winner_seq") }
        try await db.writer.withoutTransaction { try $0.execute("PRAGMA user_version = 4") }
        let reopened = try #require(try store.reopen().database(named: "db"))
        for n in 0..<8 { try await Self.expectSameWinner("d\(n)", reopened) }
        #expect(try await Self.rowsNotPointingAtTheirWinner(reopened) == 0)
        let filled = try await reopened.readers.read { try $0.integer("SELECT count(winner_seq) FROM docs") }
        #expect(filled == 8)
    }

    /// A Settee older than schema 5 writing the file after a downgrade leaves
    /// `winner_seq` stale or NULL: every read that uses it still finds the winner.
    @Test func anUnlinkedWinnerSeqFallsBackToTheTree() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"v":1}"#).get()
        _ = try await db.put("a", #"{"v":2}"#, base: first)
        _ = try await db.put("b", #"{"v":3}"#)
        // "a" points at its first revision's row, "b" at none.
        try await db.writer.write { connection in
            try connection.run("""
                UPDATE docs SET winner_seq = (SELECT min(sequence) FROM revs WHERE revs.doc_id = docs.doc_id)
                WHERE docid = 'a'
                """)
            try connection.run("UPDATE docs SET winner_seq = NULL WHERE docid = 'b'")
        }
        #expect(try await Self.rowsNotPointingAtTheirWinner(db) == 2)
        for id in ["a", "b"] { try await Self.expectSameWinner(id, db) }
        #expect(try await db.winner(id: "a")?.body == bytes(#"{"v":2}"#))
        var query = AllDocsQuery()
        query.includeBodies = true
        let expected = [bytes(#"{"v":2}"#), bytes(#"{"v":3}"#)]
        #expect(try await db.allDocs(query).rows.map(\.body) == expected)
        query.keys = ["a", "b"]
        #expect(try await db.allDocs(query).rows.map(\.body) == expected)
    }

    // MARK: Helpers

    private static func expectSameWinner(_ id: String, _ db: Database,
                                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let viaTree = try await db.document(id: id, revisions: .winner)?.revisions.first
        let alone = try await db.winner(id: id)
        #expect(alone?.rev == viaTree?.rev, "\(id)", sourceLocation: sourceLocation)
        #expect(alone?.isDeleted == viaTree?.isDeleted, "\(id)", sourceLocation: sourceLocation)
        #expect(alone?.sequence == viaTree?.sequence, "\(id)", sourceLocation: sourceLocation)
        #expect(alone?.body == viaTree?.body, "\(id)", sourceLocation: sourceLocation)
        #expect(alone?.attachments == viaTree?.attachments, "\(id)", sourceLocation: sourceLocation)
    }

    /// `docs` rows whose `winner_seq` is not the row of the revision `winner` names.
    private static func rowsNotPointingAtTheirWinner(_ db: Database) async throws -> Int64? {
        try await db.readers.read { connection in
            try connection.integer("""
                SELECT count(*) FROM docs d LEFT JOIN revs r ON r.sequence = d.winner_seq
                WHERE r.revid IS NOT d.winner OR r.doc_id IS NOT d.doc_id
                """)
        }
    }

    /// One edit of the winner, a delete, a recreation, or a replicated branch.
    private static func randomWrite(_ id: String, _ db: Database, attachment: StoredAttachment,
                                    _ random: inout SplitMix) async throws {
        let winner = try await db.document(id: id, revisions: .winner)?.tree.winner
        let body = #"{"v":\#(Int.random(in: 0..<1000, using: &random))}"#
        let attachments: [AttachmentUpdate] = Bool.random(using: &random) ? [.new(attachment)] : []
        switch Int.random(in: 0..<4, using: &random) {
        case 0:  // edit (or create, or recreate after a delete)
            _ = try await db.update([DocumentUpdate(id: id, body: bytes(body),
                                                    baseRevision: winner?.isDeleted == false ? winner?.rev : nil,
                                                    attachments: attachments)], newEdits: true)
        case 1:  // delete the winner
            guard let winner, !winner.isDeleted else { return }
            _ = try await db.put(id, "{}", base: winner.rev, deleted: true)
        default:  // a replicated branch, sometimes deep enough to be stemmed, sometimes deleted
            let depth = Int.random(in: 1...5, using: &random)
            let branch = "b\(Int.random(in: 0..<1_000_000, using: &random))"
            let history = (0..<depth).map { "\(depth - $0)-\(branch)x\($0)" }
            _ = try await db.force(id, history, body, deleted: Int.random(in: 0..<4, using: &random) == 0)
        }
    }
}
