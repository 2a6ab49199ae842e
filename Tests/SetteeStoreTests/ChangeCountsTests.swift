@testable import SetteeStore
import Testing

@Suite struct ChangeCountsTests {
    /// `count(*)` of the rest of the feed, as `pending` was counted before `ChangeCounts`.
    func recount(_ db: Database, since: Int64) async throws -> Int {
        try await db.readers.read { Int(try $0.integer("SELECT count(*) FROM docs WHERE seq > ?", [.integer(since)]) ?? 0) }
    }

    func expectCountsExact(_ db: Database, at seqs: [Int64]) async throws {
        for since in seqs {
            let counted = try await db.changeCount(since: since)
            #expect(counted == (try await recount(db, since: since)), "since \(since)")
        }
    }

    /// Counts made from a remembered one, forwards, backwards and far off, equal a full
    /// count; and so after writes (which move documents to new seqs), a purge (which
    /// removes a document and takes a seq of its own) and a deletion.
    @Test func countsFromRememberedOnesEqualAFullCount() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<60 { _ = try await db.put("d\(i)", #"{"i":\#(i)}"#).get() }
        try await expectCountsExact(db, at: [0, 10, 20, 30, 25, 59, 60, 61, 5, 0, 1000, -1])
        // Rewrites move documents from early seqs to the end.
        for i in stride(from: 0, to: 60, by: 7) {
            let winner = try #require(try await db.document(id: "d\(i)", revisions: .winner)?.revisions.first)
            _ = try await db.put("d\(i)", #"{"again":true}"#, base: winner.rev).get()
        }
        try await expectCountsExact(db, at: [0, 10, 20, 40, 70, 69, 3])
        let three = try #require(try await db.document(id: "d3", revisions: .winner)?.revisions.first)
        _ = try await db.purge([(id: "d3", revisions: [three.rev])])
        _ = try await db.put("d4", base: try #require(try await db.document(id: "d4", revisions: .winner)?
            .revisions.first?.rev), deleted: true).get()
        try await expectCountsExact(db, at: [0, 2, 3, 4, 50, 71, 72, 73, 80])
    }

    /// A page after a counted one counts only the documents between the two seqs: the
    /// full `count(*)` of the rest of the feed runs once per update seq, not per page.
    @Test func aFeedReadPageByPageCountsTheRestOnce() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<40 { _ = try await db.put("d\(i)").get() }
        let statements = try await db.readers.read { connection in
            var issued: [String] = []
            connection.statementObserver = { issued.append($0) }
            defer { connection.statementObserver = nil }
            var counts: [Int] = []
            for since in stride(from: Int64(0), through: 40, by: 10) {
                counts.append(try db.changeCounts.count(connection, since: since))
            }
            #expect(counts == [40, 30, 20, 10, 0])
            return issued
        }
        #expect(statements.filter { $0.contains("count(*)") && !$0.contains("seq <= ?") }.count == 1)
        #expect(statements.filter { $0.contains("seq <= ?") }.count == 4)
    }

    /// Counts of an earlier update seq are dropped when a later one is kept, and no more
    /// than `capacity` are kept.
    @Test func keepsOnlyCountsOfTheLatestUpdateSeqUpToCapacity() {
        let counts = ChangeCounts()
        counts.remember(.init(updateSequence: 5, since: 1, count: 4))
        counts.remember(.init(updateSequence: 6, since: 2, count: 3))
        #expect(counts.nearest(updateSequence: 5, since: 1) == nil)
        #expect(counts.nearest(updateSequence: 6, since: 0)?.since == 2)
        for since in 0..<Int64(ChangeCounts.capacity + 3) {
            counts.remember(.init(updateSequence: 7, since: since * 10, count: 100 - Int(since)))
        }
        #expect(counts.nearest(updateSequence: 7, since: 0)?.since == 30)
        #expect(counts.nearest(updateSequence: 7, since: 57)?.since == 60)
    }
}
