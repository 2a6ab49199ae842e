@testable import SetteeStore
import SetteeTestSupport
import Testing

/// `ConflictRecords`: the documents in conflict, kept as writes land, always equal to what
/// a scan of every document's leaves finds.
@Suite struct ConflictRecordsTests {
    private func scanned(_ db: Database, _ ids: [String]) async throws -> [String] {
        var found: [String] = []
        for id in ids.sorted() {
            if let tree = try await db.document(id: id, revisions: .none)?.tree, !tree.conflicts.isEmpty { found.append(id) }
        }
        return found
    }

    private func listed(_ db: Database) async throws -> [String] {
        try await db.conflictedDocuments(limit: 1_000).map(\.id)
    }

    @Test func branchesDeletionsAndPurge() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"n":1}"#).get()
        _ = try await db.put("b")
        #expect(try await listed(db).isEmpty)
        // A replicated root beside the first makes "a" a conflict (the lowest id: the loser).
        _ = try await db.force("a", ["1-" + String(repeating: "0", count: 32)])
        _ = first
        let found = try await db.conflictedDocuments(limit: 10)
        #expect(found.map(\.id) == ["a"])
        #expect(found.first?.conflicts.count == 1)
        #expect(try await db.conflictedDocumentCount() == 1)
        // Deleting the losing leaf resolves it.
        let loser = try #require(found.first?.conflicts.first)
        _ = try await db.put("a", base: loser, deleted: true)
        #expect(try await listed(db).isEmpty)
        // A second branch, then a purge of it.
        _ = try await db.force("b", ["1-" + String(repeating: "1", count: 32)], #"{"other":true}"#)
        #expect(try await listed(db) == ["b"])
        _ = try await db.purge([(id: "b", revisions: [rev("1-" + String(repeating: "1", count: 32))])])
        #expect(try await listed(db).isEmpty)
    }

    @Test func indexEqualsAScanUnderRandomWrites() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        var random = SplitMix(state: 47)
        let ids = (0..<20).map { "d\($0)" }
        for step in 0..<300 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let tree = try await db.document(id: id, revisions: .none)?.tree
            switch random.next() % 4 {
            case 0:  // a replicated root of its own beside whatever is there: a new branch
                let hex = String(repeating: String(step % 10), count: 31) + String(step % 7)
                _ = try await db.force(id, ["1-\(hex)"], #"{"s":\#(step)}"#)
            case 1:  // delete a losing leaf
                if let loser = tree?.conflicts.first { _ = try await db.put(id, base: loser, deleted: true) }
            default:  // an ordinary edit of the winner
                _ = try await db.put(id, #"{"s":\#(step)}"#, base: tree?.winner?.rev)
            }
        }
        #expect(try await listed(db) == (try await scanned(db, ids)))
        #expect(try await db.conflictedDocuments(startKey: "d15", limit: 2).map(\.id)
                == Array((try await scanned(db, ids)).filter { $0 >= "d15" }.prefix(2)))
    }
}
