import Dispatch
import Logging
@testable import SetteeStore
import Synchronization
import Testing

/// `Database.winner(id:)` answered from the directory's `WinnerCache`: each kind of
/// write makes the next read see what it wrote, a read racing a commit leaves no stale
/// entry, and the entries stay within the budget and go with their database.
@Suite struct WinnerCacheTests {
    func withDatabase(_ body: (Database, DatabaseDirectory) async throws -> Void) async throws {
        let store = try TestStore()
        defer { store.remove() }
        try await body(try store.directory.create("db"), store.directory)
    }

    /// Reads `id` twice, the second time from the cache, and returns what it found.
    func cachedWinner(_ db: Database, _ id: String) async throws -> StoredRevision? {
        let first = try await db.winner(id: id)
        #expect(db.cachedWinners.revision(id: id)?.rev == first?.rev, "the read kept what it found")
        return try await db.winner(id: id)
    }

    @Test func anEditAndADeleteAreReadBackAtOnce() async throws {
        try await withDatabase { db, _ in
            let first = try await db.put("a", #"{"v":1}"#).get()
            #expect(try await cachedWinner(db, "a")?.body == bytes(#"{"v":1}"#))
            let second = try await db.put("a", #"{"v":2}"#, base: first).get()
            let edited = try await db.winner(id: "a")
            #expect(edited?.rev == second && edited?.body == bytes(#"{"v":2}"#))
            #expect(try await cachedWinner(db, "a")?.rev == second)
            let third = try await db.put("a", base: second, deleted: true).get()
            let deleted = try await db.winner(id: "a")
            #expect(deleted?.rev == third && deleted?.isDeleted == true)
        }
    }

    /// A write of one document leaves the others' entries; a write that names none of
    /// its documents (a job of the writer's own) clears the database's.
    @Test func aWriteRemovesOnlyWhatItChanged() async throws {
        try await withDatabase { db, _ in
            let a = try await db.put("a").get()
            _ = try await db.put("b").get()
            _ = try await cachedWinner(db, "a")
            _ = try await cachedWinner(db, "b")
            _ = try await db.put("a", base: a).get()
            #expect(db.cachedWinners.revision(id: "a") == nil)
            #expect(db.cachedWinners.revision(id: "b") != nil)
            try await db.writer.write { _ in }
            #expect(db.cachedWinners.revision(id: "b") == nil)
        }
    }

    /// A `_local` document (a replication's checkpoint) is no winner: its write keeps the entries.
    @Test func aLocalDocumentWriteKeepsTheEntries() async throws {
        try await withDatabase { db, _ in
            _ = try await db.put("a").get()
            _ = try await cachedWinner(db, "a")
            _ = try await db.putLocal(id: "checkpoint", body: bytes("{}"), rev: nil, isDeleted: false)
            #expect(db.cachedWinners.revision(id: "a") != nil)
        }
    }

    @Test func aReplicatedRevisionIsReadBackAtOnce() async throws {
        try await withDatabase { db, _ in
            _ = try await db.force("a", ["1-aa"], #"{"v":1}"#).get()
            #expect(try await cachedWinner(db, "a")?.rev == rev("1-aa"))
            _ = try await db.force("a", ["2-bb", "1-aa"], #"{"v":2}"#).get()
            let replicated = try await db.winner(id: "a")
            #expect(replicated?.rev == rev("2-bb") && replicated?.body == bytes(#"{"v":2}"#))
        }
    }

    @Test func aPurgeIsReadBackAtOnce() async throws {
        try await withDatabase { db, _ in
            _ = try await db.force("a", ["1-aa"], #"{"v":1}"#).get()
            _ = try await db.force("a", ["1-bb"], #"{"v":2}"#).get()
            #expect(try await cachedWinner(db, "a")?.rev == rev("1-bb"))
            _ = try await db.purge([(id: "a", revisions: [rev("1-bb")])])
            #expect(try await db.winner(id: "a")?.rev == rev("1-aa"))
            _ = try await db.purge([(id: "a", revisions: [rev("1-aa")])])
            #expect(try await db.winner(id: "a") == nil)
        }
    }

    @Test func anAttachmentIsReadBackAtOnce() async throws {
        try await withDatabase { db, _ in
            let first = try await db.put("a").get()
            #expect(try await cachedWinner(db, "a")?.attachments.isEmpty == true)
            let attachment = try await db.storeAttachment(name: "x.txt", contentType: "text/plain", bytes: [1, 2, 3])
            _ = try await db.update([DocumentUpdate(id: "a", body: bytes("{}"), baseRevision: first,
                                                    attachments: [.new(attachment)])], newEdits: true)[0].get()
            #expect(try await db.winner(id: "a")?.attachments.map(\.name) == ["x.txt"])
        }
    }

    /// Compaction and `_revs_limit` change what they cannot name by ids: every entry goes.
    @Test func compactionAndRevsLimitClearTheDatabasesEntries() async throws {
        try await withDatabase { db, directory in
            let first = try await db.put("a").get()
            _ = try await db.put("a", base: first).get()
            _ = try await cachedWinner(db, "a")
            try await db.compact()
            #expect(db.cachedWinners.revision(id: "a") == nil)
            _ = try await cachedWinner(db, "a")
            try await db.setRevsLimit(1)
            #expect(db.cachedWinners.revision(id: "a") == nil)
            #expect(directory.winnerCache.count == 0)
        }
    }

    /// A read that found the old revision and inserts it only after a commit changed the
    /// document (held between its read and its insert) must not leave it behind.
    @Test func aReadRacingACommitLeavesNoStaleEntry() async throws {
        try await withDatabase { db, _ in
            let first = try await db.put("a", #"{"v":1}"#).get()
            let (reached, reachedContinuation) = AsyncStream<Void>.makeStream()
            let proceed = DispatchSemaphore(value: 0)
            db.cachedWinners.beforeInsert.withLock { $0 = { _ in
                reachedContinuation.yield()
                proceed.wait()  // on the reader's queue, never the test's
            } }
            let racing = Task { try await db.winner(id: "a") }
            for await _ in reached { break }
            db.cachedWinners.beforeInsert.withLock { $0 = nil }
            let second = try await db.put("a", #"{"v":2}"#, base: first).get()
            proceed.signal()
            #expect(try await racing.value?.rev == first)  // it read before the commit
            #expect(db.cachedWinners.revision(id: "a") == nil)
            #expect(try await db.winner(id: "a")?.rev == second)
        }
    }

    /// Many databases share one budget; a deleted one's entries go, and so do those of
    /// one the directory closes while idle.
    @Test func theBudgetHoldsOverDatabasesAndClosedOnesDropTheirEntries() async throws {
        let store = try TestStore()
        defer { store.remove() }
        var configuration = store.directory.configuration
        configuration.documentCacheSize = 64 * 1024
        let directory = try DatabaseDirectory(configuration: configuration, logger: .init(label: "test"))
        for n in 0..<20 {
            let db = try directory.create("db\(n)")
            for d in 0..<50 {
                _ = try await db.put("doc\(d)", #"{"text":"\#(String(repeating: "x", count: 100))"}"#)
                _ = try await db.winner(id: "doc\(d)")
            }
            #expect(directory.winnerCache.bytes <= 64 * 1024)
        }
        #expect(directory.winnerCache.count > 0)
        let last = try #require(try directory.database(named: "db19"))
        try directory.delete("db19")
        #expect(last.cachedWinners.revision(id: "doc49") == nil)
        let idle = try #require(try directory.database(named: "db18"))
        _ = try await idle.winner(id: "doc1")
        idle.closeWhenIdle()
        #expect(idle.cachedWinners.revision(id: "doc1") == nil)
        #expect(try await idle.winner(id: "doc1") != nil)
    }
}
