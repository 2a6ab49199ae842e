import Testing
@testable import SetteeStore

@Suite struct AllDocsReaderTests {
    private func database(_ store: TestStore) async throws -> Database {
        let db = try store.directory.create("db")
        // Byte order puts "B" (0x42) before "a" (0x61); ICU would not.
        for id in ["c", "a", "B", "b", "é", "d"] { _ = try await db.put(id, #"{"id":"\#(id)"}"#) }
        let d = try #require(try await db.document(id: "d", revisions: .winner)?.tree.winner?.rev)
        _ = try await db.put("d", base: d, deleted: true)
        return db
    }

    @Test func rangesInByteOrder() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await database(store)
        let all = try await db.allDocs(AllDocsQuery())
        #expect(all.totalRows == 5)
        #expect(all.rows.map(\.id) == ["B", "a", "b", "c", "é"])
        var query = AllDocsQuery()
        query.startKey = "a"
        query.endKey = "c"
        query.inclusiveEnd = false
        #expect(try await db.allDocs(query).rows.map(\.id) == ["a", "b"])
        query.descending = true
        query.startKey = "c"
        query.endKey = "a"
        #expect(try await db.allDocs(query).rows.map(\.id) == ["c", "b"])
        query.inclusiveEnd = true
        query.skip = 1
        query.limit = 1
        #expect(try await db.allDocs(query).rows.map(\.id) == ["b"])
    }

    /// `skip` arrives clamped to Int.max for a huge query value; adding the rows
    /// before the start key to it once trapped.
    @Test func hugeSkipAfterAStartKey() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await database(store)
        var query = AllDocsQuery()
        query.startKey = "b"
        query.skip = Int.max
        let result = try await db.allDocs(query)
        #expect(result.rows.isEmpty)
        #expect(result.offset == result.totalRows)
    }

    @Test func bodiesAndKeys() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await database(store)
        var query = AllDocsQuery()
        query.includeBodies = true
        query.keys = ["b", "zz", "d"]
        let rows = try await db.allDocs(query).rows
        #expect(rows.map(\.id) == ["b", "zz", "d"])
        #expect(rows[0].body == bytes(#"{"id":"b"}"#) && rows[0].rev != nil)
        #expect(rows[1].rev == nil && !rows[1].isDeleted)
        #expect(rows[2].isDeleted && rows[2].rev?.generation == 2 && rows[2].body == nil)
        var range = AllDocsQuery()
        range.includeBodies = true
        range.limit = 1
        #expect(try await db.allDocs(range).rows.first?.body == bytes(#"{"id":"B"}"#))
    }

    /// `conflicts` with bodies: each row with a body gets its document's non-deleted
    /// losing leaves, in range and `keys` reads alike; without bodies, none.
    @Test func conflictsComeWithBodies() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await database(store)
        let winner = try #require(try await db.document(id: "b", revisions: .winner)?.tree.winner?.rev)
        // The lowest 32-digit ids there are: below any hash, whatever the winner's is.
        let lowest = "1-" + String(repeating: "0", count: 32)
        _ = try await db.force("b", [lowest], #"{"loser":true}"#)
        _ = try await db.force("b", ["1-" + String(repeating: "0", count: 31) + "1"], #"{"gone":true}"#, deleted: true)
        let loser = rev(lowest)
        #expect(try await db.document(id: "b", revisions: .winner)?.tree.winner?.rev == winner)
        var query = AllDocsQuery()
        query.includeBodies = true
        query.includeConflicts = true
        let range = try await db.allDocs(query).rows
        #expect(range.first { $0.id == "b" }?.conflicts == [loser])
        #expect(range.filter { $0.id != "b" }.allSatisfy { $0.conflicts.isEmpty })
        query.keys = ["b", "zz", "d"]
        #expect(try await db.allDocs(query).rows.map { $0.conflicts } == [[loser], [], []])
        query.includeBodies = false
        #expect(try await db.allDocs(query).rows.allSatisfy { $0.conflicts.isEmpty })
    }
}
