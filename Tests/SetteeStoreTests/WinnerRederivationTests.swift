import Testing
@testable import SetteeStore

/// Schema 5 → 6 re-derives winners a text comparison of revision ids chose.
@Suite struct WinnerRederivationTests {
    @Test func aDatabaseWithATextOrderWinnerIsFixedOnOpen() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let hex = rev("1-cb7879c05fc741b5a3537a1c73f603c2"), text = rev("1-conflict0097")
        do {
            let db = try store.directory.create("db")
            _ = try await db.force("a", [hex.description], #"{"v":"hex"}"#).get()
            _ = try await db.force("a", [text.description], #"{"v":"text"}"#).get()
            _ = try await db.put("plain", #"{"v":1}"#).get()
            // Make the file what schema 5 wrote: the winner text order picks, at user_version 5.
            try await db.writer.write { connection in
                try connection.run("""
                    UPDATE docs SET winner = ?, winner_seq = (SELECT sequence FROM revs WHERE revid = ?)
                    WHERE docid = 'a'
                    """, [.text(text.description), .text(text.description)])
                try connection.execute("PRAGMA user_version = 5")
            }
            #expect(try await Self.cachedWinner(db, "a") == text.description)
            store.directory.closeAll()
        }
        let reopened = try store.reopen()
        let db = try #require(try reopened.database(named: "db"))
        #expect(try await Self.cachedWinner(db, "a") == hex.description)
        let fixed = try #require(try await db.document(id: "a", revisions: .winner))
        #expect(fixed.revisions.first?.rev == hex)
        #expect(fixed.revisions.first?.body == bytes(#"{"v":"hex"}"#))
        #expect(fixed.tree.conflicts == [text])
        let version = try await db.readers.read { try $0.integer("PRAGMA user_version") }
        #expect(version == Int64(Schema.migrations.count))
        #expect(try await db.document(id: "plain", revisions: .winner)?.revisions.first?.body == bytes(#"{"v":1}"#))
        let info = try await db.info()
        #expect(info.docCount == 2)
        let rows = try await db.allDocs(AllDocsQuery())
        #expect(rows.rows.first { $0.id == "a" }?.rev == hex)
        reopened.closeAll()
    }

    /// The winner `docs` caches (what `_all_docs` and the fast `GET` read).
    static func cachedWinner(_ db: Database, _ id: String) async throws -> String? {
        try await db.readers.read { connection in
            var winner: String?
            try connection.query("SELECT winner FROM docs WHERE docid = ?", [.text(id)]) { winner = $0.text(0) }
            return winner
        }
    }
}
