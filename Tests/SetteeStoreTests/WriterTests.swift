import Dispatch
import Foundation
import Synchronization
@testable import SetteeStore
import SetteeTestSupport
import Testing

/// The writer's group commit when a job meets a full disk (issue #44, item 1). SQLite
/// rolls the whole transaction back after SQLITE_FULL in a statement that keeps no
/// statement journal (a one-row INSERT; vdbeaux.c `sqlite3VdbeHalt`), so the jobs
/// before it in the batch are gone too: every job of the batch must fail with the full
/// disk's error, none may be committed behind a failure (a job after the rollback ran
/// in a transaction of its own and was committed while it was told it failed), and the
/// writer works again once there is room.
@Suite struct WriterTests {
    @Test func aFullDiskFailsTheWholeBatchWithItsOwnErrorAndTheWriterRecovers() async throws {
        let directory = try TempDirectory(prefix: "writer")
        defer { directory.remove() }
        let connection = try Connection(path: directory.path + "/w.sqlite")
        try connection.execute("CREATE TABLE t (name TEXT, bytes BLOB)")
        // Room for a small row, not for 100 KB (https://sqlite.org/pragma.html#pragma_max_page_count).
        let pages = try connection.integer("PRAGMA page_count") ?? 0
        try connection.execute("PRAGMA max_page_count = \(pages + 2)")
        let writer = Writer(connection: connection, label: "w", commits: CommitCounter())

        // The first job holds the queue while the three others are queued: one batch of three.
        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        let holding = Task { try await writer.write { _ in started.signal(); gate.wait() } }
        await withCheckedContinuation { done in DispatchQueue.global().async { started.wait(); done.resume() } }
        var jobs: [Task<Void, any Error>] = []
        for (name, size) in [("before", 10), ("full", 100_000), ("after", 10)] {
            jobs.append(Task { try await writer.write { db in try db.run("INSERT INTO t VALUES (?, ?)", [SQLiteValue.text(name), SQLiteValue.blob(Array(repeating: 7, count: size))]) } })
            try await poll { writer.pendingCount == jobs.count }  // queued in this order
        }
        gate.signal()
        try await holding.value
        for job in jobs {
            let result = await job.result
            guard case .failure(let error as StoreError) = result, case .sqlite(let code, _, _) = error else {
                Issue.record("a job of the failed batch was told \(result)")
                continue
            }
            #expect(code & 0xFF == 13, "\(error)")
        }
        let stored = try await writer.write { db in try db.integer("SELECT count(*) FROM t") ?? -1 }
        #expect(stored == 0, "rows committed behind a failed batch")

        try await writer.write { db in try db.execute("PRAGMA max_page_count = 100000") }
        try await writer.write { db in try db.run("INSERT INTO t VALUES ('again', ?)", [SQLiteValue.blob(Array(repeating: 1, count: 100_000))]) }
        #expect(try await writer.write { db in try db.integer("SELECT count(*) FROM t") } == 1)
        writer.close()
    }

    /// The first job of a transaction runs with no savepoint (none of its pages go to a
    /// sub-journal); when it fails, it alone is rolled back and the jobs queued after it
    /// still commit, in a transaction of their own savepoints as before.
    @Test func theFirstJobNeedsNoSavepointAndFailsAlone() async throws {
        let directory = try TempDirectory(prefix: "writer")
        defer { directory.remove() }
        let connection = try Connection(path: directory.path + "/w.sqlite")
        try connection.execute("CREATE TABLE t (name TEXT UNIQUE)")
        let seen = StatementLog()
        connection.statementObserver = { sql in seen.sql.withLock { $0.append(sql) } }
        let writer = Writer(connection: connection, label: "w", commits: CommitCounter())
        try await writer.write { db in try db.run("INSERT INTO t VALUES ('taken')") }
        let statements = seen.sql.withLock { $0 }
        #expect(statements.contains("BEGIN IMMEDIATE") && !statements.contains { $0.hasPrefix("SAVEPOINT") }, "\(statements)")

        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        let holding = Task { try await writer.write { _ in started.signal(); gate.wait() } }
        await withCheckedContinuation { done in DispatchQueue.global().async { started.wait(); done.resume() } }
        // One batch of three: the first writes a row, then fails on a taken name.
        let rows = [["first", "taken"], ["second"], ["third"]]
        var jobs: [Task<Void, any Error>] = []
        for names in rows {
            jobs.append(Task { try await writer.write { db in
                for name in names { try db.run("INSERT INTO t VALUES (?)", [SQLiteValue.text(name)]) }
            } })
            try await poll { writer.pendingCount == jobs.count }
        }
        gate.signal()
        try await holding.value
        var failed: [Bool] = []
        for job in jobs { failed.append(await job.result.isFailure) }
        #expect(failed == [true, false, false])
        let names = try await writer.write { db in
            var names: [String] = []
            try db.query("SELECT name FROM t ORDER BY name") { names.append($0.text(0) ?? "") }
            return names
        }
        #expect(names == ["second", "taken", "third"])  // nothing of the failed first job
        writer.close()
    }

    /// Jobs that need no fsync (a key index's rows) commit with synchronous=NORMAL when
    /// they are alone in their transaction; sharing one with a durable write, or after
    /// it, every commit is FULL again (https://sqlite.org/pragma.html#pragma_synchronous:
    /// 1 NORMAL, 2 FULL).
    @Test func onlyATransactionOfJobsThatNeedNoFsyncSkipsIt() async throws {
        let directory = try TempDirectory(prefix: "writer")
        defer { directory.remove() }
        let connection = try Connection(path: directory.path + "/w.sqlite")
        try connection.execute("CREATE TABLE t (name TEXT)")
        let writer = Writer(connection: connection, label: "w", commits: CommitCounter())
        let synchronous = { @Sendable (db: Connection) throws -> Int64 in try db.integer("PRAGMA synchronous") ?? -1 }
        #expect(try await writer.write(durable: false, synchronous) == 1)
        #expect(try await writer.write(synchronous) == 2)

        // One batch of a durable job between two that need no fsync: FULL for all three.
        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        let holding = Task { try await writer.write(durable: false) { _ in started.signal(); gate.wait() } }
        await withCheckedContinuation { done in DispatchQueue.global().async { started.wait(); done.resume() } }
        var jobs: [Task<Int64, any Error>] = []
        for durable in [false, true, false] {
            jobs.append(Task { try await writer.write(durable: durable, synchronous) })
            try await poll { writer.pendingCount == jobs.count }
        }
        gate.signal()
        try await holding.value
        var seen: [Int64] = []
        for job in jobs { seen.append(try await job.value) }
        #expect(seen == [2, 2, 2])
        #expect(try await writer.write(synchronous) == 2)
        #expect(try await writer.write(durable: false, synchronous) == 1)
        writer.close()
    }

    /// Waits until `condition` holds, for at most 10 s.
    func poll(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            await Task.yield()
        }
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

/// The SQL a connection ran, as its `statementObserver` saw it (on the writer's queue).
final class StatementLog: Sendable {
    let sql = Mutex<[String]>([])
}
