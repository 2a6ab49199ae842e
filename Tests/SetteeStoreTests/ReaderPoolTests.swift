import Testing
@testable import SetteeStore

/// Readers keep their snapshot between reads until the writer commits (`CommitCounter`).
@Suite struct ReaderPoolTests {
    @Test func aSnapshotIsReusedUntilACommit() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a", #"{"v":1}"#)
        let before = db.readers.snapshotsBegun
        for _ in 0..<6 { _ = try await db.document(id: "a", revisions: .winner) }
        // Two readers in TestStore, used in turn: one snapshot each, then reused.
        #expect(db.readers.snapshotsBegun - before == 2)
        let first = try #require(try await db.document(id: "a", revisions: .winner)?.tree.winner?.rev)
        _ = try await db.put("a", #"{"v":2}"#, base: first)
        // The write was acknowledged: every read after it sees it.
        for _ in 0..<4 {
            let body = try await db.document(id: "a", revisions: .winner)?.revisions.first?.body
            #expect(body == bytes(#"{"v":2}"#))
        }
        #expect(db.readers.snapshotsBegun - before == 4)
    }

    /// A reader that gets no more reads lets go of its snapshot when the writer
    /// commits, so it never keeps the WAL from being checkpointed and reset.
    @Test func idleReadersReleaseTheirSnapshotAfterACommit() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for n in 0..<4 { _ = try await db.put("d\(n)") }
        for n in 0..<4 { _ = try await db.document(id: "d\(n)", revisions: .winner) }
        #expect(db.readers.openSnapshots() == 2)
        _ = try await db.put("e")
        #expect(db.readers.openSnapshots() == 0)
        let busy = try await db.writer.withoutTransaction { try $0.integer("PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(busy == 0)
    }
}
