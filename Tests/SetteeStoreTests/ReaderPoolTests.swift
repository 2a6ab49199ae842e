import Dispatch
import Synchronization
import Testing
@testable import SetteeStore

/// Readers keep their snapshot between reads until the writer commits (`CommitCounter`).
@Suite struct ReaderPoolTests {
    /// A read goes to the least busy reader, so point reads do not wait behind a
    /// long read (in turn, every second one would).
    @Test func readsAvoidTheBusyReader() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let watchdogFired = Atomic<Bool>(false)
        // Holds the first reader until released; the watchdog bounds a failing run.
        async let held: Void = db.readers.read { _ in started.signal(); release.wait() }
        await withCheckedContinuation { c in DispatchQueue.global().async { started.wait(); c.resume() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            watchdogFired.store(true, ordering: .relaxed)
            release.signal()
        }
        for _ in 0..<3 { #expect(try await db.document(id: "a", revisions: .winner) != nil) }
        let fired = watchdogFired.load(ordering: .relaxed)
        #expect(!fired)
        release.signal()
        try await held
    }

    @Test func aSnapshotIsReusedUntilACommit() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a", #"{"v":1}"#)
        let before = db.readers.snapshotsBegun
        for _ in 0..<6 { _ = try await db.document(id: "a", revisions: .winner) }
        // One read at a time goes to the first (least busy) reader: one snapshot, reused.
        #expect(db.readers.snapshotsBegun - before == 1)
        let first = try #require(try await db.document(id: "a", revisions: .winner)?.tree.winner?.rev)
        _ = try await db.put("a", #"{"v":2}"#, base: first)
        // The write was acknowledged: every read after it sees it.
        for _ in 0..<4 {
            let body = try await db.document(id: "a", revisions: .winner)?.revisions.first?.body
            #expect(body == bytes(#"{"v":2}"#))
        }
        #expect(db.readers.snapshotsBegun - before == 2)
    }

    /// A reader that gets no more reads lets go of its snapshot when the writer
    /// commits, so it never keeps the WAL from being checkpointed and reset.
    @Test func idleReadersReleaseTheirSnapshotAfterACommit() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for n in 0..<4 { _ = try await db.put("d\(n)") }
        // Concurrent reads, so that both readers of TestStore are likely used.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<40 { group.addTask { _ = try await db.document(id: "d\(n % 4)", revisions: .winner) } }
            try await group.waitForAll()
        }
        #expect(db.readers.openSnapshots() >= 1)
        _ = try await db.put("e")
        #expect(db.readers.openSnapshots() == 0)
        let busy = try await db.writer.withoutTransaction { try $0.integer("PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(busy == 0)
    }

    /// Whether a snapshot is kept is decided when the read ends. A checkpoint that
    /// needs the readers off the WAL asks the readers it sees holding a snapshot to
    /// end it; one that began while this read was starting may not have seen it, and
    /// a snapshot kept then held the checkpoint and the writes behind it for the
    /// 10 s busy timeout (fuzz/api.py found it).
    @Test func aReadEndsItsSnapshotWhenReadersMustLeaveTheWAL() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        let commits = CommitCounter()
        let pool = try ReaderPool(path: db.path, count: 1, label: "test", commits: commits)
        defer { pool.close() }
        _ = try await pool.read { try $0.integer("SELECT count(*) FROM docs") }
        #expect(pool.openSnapshots() == 1)
        // The flag turns while the read runs, and no release is asked of this reader.
        _ = try await pool.read { connection in
            commits.mayKeepSnapshots = false
            return try connection.integer("SELECT count(*) FROM docs")
        }
        #expect(pool.openSnapshots() == 0)
        commits.mayKeepSnapshots = true
        _ = try await pool.read { try $0.integer("SELECT count(*) FROM docs") }
        #expect(pool.openSnapshots() == 1)
    }
}
