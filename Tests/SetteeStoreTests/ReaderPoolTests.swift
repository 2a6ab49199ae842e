import Dispatch
import Synchronization
import Testing
@testable import SetteeStore

/// Readers keep their snapshot between reads until the writer commits (`CommitCounter`).
@Suite struct ReaderPoolTests {
    /// Point reads do not wait behind a scan: they go to a reader without one, the
    /// first reader too once a scan sits on it.
    @Test func pointReadsAvoidAReaderWithAScan() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        let watchdogFired = Atomic<Bool>(false)
        // Scans held until released; the watchdog bounds a failing run.
        let first = HeldRead(), second = HeldRead()
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            watchdogFired.store(true, ordering: .relaxed)
            first.release.signal()
            second.release.signal()
        }
        // The first scan goes to the last reader, the second then to the less busy first reader.
        async let scan1: Void = db.readers.read(.scan) { _ in first.hold() }
        await first.started()
        async let scan2: Void = db.readers.read(.scan) { _ in second.hold() }
        await second.started()
        // With the last reader free again, point reads leave the first one, which holds a scan.
        first.release.signal()
        try await scan1
        for _ in 0..<3 {
            #expect(try await db.winner(id: "a") != nil)
            #expect(try await db.document(id: "a", revisions: .winner) != nil)
        }
        let fired = watchdogFired.load(ordering: .relaxed)
        #expect(!fired)
        second.release.signal()
        try await scan2
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
        let pool = ReaderPool(opener: ConnectionOpener(path: db.path, name: "db", readerMmapSize: 0), count: 1,
                              label: "test", commits: commits)
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

    /// A read on an idle reader goes to the read thread (`ReadThread`); while the thread
    /// runs a long read, reads on the other reader go to its queue and still answer.
    @Test func readsOnAnIdleReaderGoToTheReadThread() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        let thread = ReadThread(spin: .seconds(30))
        let pool = ReaderPool(opener: ConnectionOpener(path: db.path, name: "db", readerMmapSize: 0), count: 2,
                              label: "test", commits: CommitCounter(), readThread: thread)
        defer { pool.close() }
        func taken() -> Int { thread.takenAsleep.load(ordering: .relaxed) + thread.takenLooking.load(ordering: .relaxed) }
        for _ in 0..<3 { #expect(try await pool.read { try $0.integer("SELECT count(*) FROM docs") } == 1) }
        #expect(taken() == 3)
        let held = HeldRead()
        async let scan: Void = pool.read(.scan) { _ in held.hold() }
        await held.started()
        #expect(try await pool.read { try $0.integer("SELECT count(*) FROM docs") } == 1)
        #expect(taken() == 4, "the read during the held scan went to a reader's queue")
        held.release.signal()
        try await scan
    }
}

/// A read that blocks its reader until `release` is signalled, and says when it started.
private final class HeldRead: Sendable {
    let release = DispatchSemaphore(value: 0)
    private let began = DispatchSemaphore(value: 0)

    func hold() {
        began.signal()
        release.wait()
    }

    func started() async {
        await withCheckedContinuation { c in DispatchQueue.global().async { [began] in began.wait(); c.resume() } }
    }
}
