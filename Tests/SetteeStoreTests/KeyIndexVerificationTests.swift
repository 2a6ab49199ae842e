import SetteeJSON
import Testing
@testable import SetteeStore

/// `settee check`'s comparison of a stored key index with a rebuild (issue #47, item 4):
/// a built index matches, also with documents changed since its build; a changed, a
/// missing and a stray entry are each found; a dropped index built again matches.
@Suite struct KeyIndexVerificationTests {
    /// Keys documents by their `n` member, the value `n` again (a view with a value).
    static let byN = KeyIndex(signature: "0e1f", entries: { document in
        guard let value = try? JSONReader.parse(document.body)["n"] else { return [] }
        var key = IndexKeyEncoding.encode(value)
        IndexKeyEncoding.append(.string(document.id), to: &key)
        return [KeyIndexEntry(key: key, value: JSONWriter.serialize(value))]
    })

    func built(_ count: Int) async throws -> (TestStore, Database) {
        let store = try TestStore()
        let db = try store.directory.create("db")
        for i in 0..<count { _ = try await db.put("d\(i)", #"{"n":\#(i)}"#).get() }
        try await db.refreshIndex(Self.byN, batch: 7)
        return (store, db)
    }

    /// Changes the stored table with `sql` (the damage a test makes on purpose).
    func damage(_ db: Database, _ sql: String) async throws {
        try await db.writer.write { connection in try connection.execute(sql) }
    }

    @Test func builtIndexMatchesAlsoWithDocumentsWrittenSince() async throws {
        let (store, db) = try await built(30)
        defer { store.remove() }
        let rev = try #require(try await db.winner(id: "d3")?.rev)
        _ = try await db.put("d3", #"{"n":300}"#, base: rev).get()  // past the index's seq
        let found = try await db.verifyIndex(Self.byN, batch: 4)
        #expect(found.matches && found.documentsCompared == 29 && found.sequence == 30, "\(found)")
        let never = try await db.verifyIndex(KeyIndex(signature: "0abc") { _ in nil })
        #expect(never.matches && never.sequence == 0)
    }

    @Test func changedMissingAndStrayEntriesAreFound() async throws {
        let (store, db) = try await built(30)
        defer { store.remove() }
        let table = Self.byN.table
        try await damage(db, "UPDATE \(table) SET value = X'3939' WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = 'd5')")
        try await damage(db, "DELETE FROM \(table) WHERE doc_id = (SELECT doc_id FROM docs WHERE docid = 'd9')")
        try await damage(db, "INSERT INTO \(table)(key, doc_id, value) VALUES (X'00', 9999, X'')")
        let found = try await db.verifyIndex(Self.byN, batch: 4)
        #expect(!found.matches && found.differingDocuments == 2 && found.strayEntries == 1, "\(found)")
        #expect(Set(found.examples) == ["d5", "d9"])

        try await db.dropIndex(Self.byN.signature)
        try await db.refreshIndex(Self.byN)
        let rebuilt = try await db.verifyIndex(Self.byN)
        #expect(rebuilt.matches && rebuilt.documentsCompared == 30, "\(rebuilt)")
    }

    /// A deleted document's entries that stayed (its deletion at or before the index's
    /// seq) are stray.
    @Test func entriesOfADeletedDocumentAreStray() async throws {
        let (store, db) = try await built(5)
        defer { store.remove() }
        let rev = try #require(try await db.winner(id: "d1")?.rev)
        _ = try await db.put("d1", "{}", base: rev, deleted: true).get()
        try await db.refreshIndex(Self.byN)
        #expect(try await db.verifyIndex(Self.byN).matches)
        try await damage(db, """
            INSERT INTO \(Self.byN.table)(key, doc_id, value)
            SELECT X'01', doc_id, X'' FROM docs WHERE docid = 'd1'
            """)
        let found = try await db.verifyIndex(Self.byN)
        #expect(found.strayEntries == 1 && found.differingDocuments == 0, "\(found)")
    }
}
