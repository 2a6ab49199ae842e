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
}
