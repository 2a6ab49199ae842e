import Foundation
import Testing
@testable import SetteeStore

@Suite struct ConnectionTests {
    /// Issue 47, item 1: with `SQLITE_CONFIG_STMTJRNL_SPILL` at 4 MiB, SQLite 3.40.1 failed any
    /// statement whose sub-journal passed 4 MiB inside a savepoint with SQLITE_FULL ("database
    /// or disk is full"), which is how every write job runs (`Writer`). This job's sub-journal
    /// holds about 10 MB: every page of a 9 MB table, changed in one UPDATE.
    @Test func aStatementJournalPastFourMebibytesInASavepointCommits() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let connection = try Connection(path: store.path + "/spill.sqlite")
        let writer = Writer(connection: connection, label: "spill", commits: CommitCounter())
        defer { writer.close() }
        try await writer.write { db in
            try db.execute("CREATE TABLE t(x BLOB)")
            try db.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                INSERT INTO t SELECT randomblob(3000) FROM n
                """)
        }
        try await writer.write { db in try db.execute("UPDATE t SET x = randomblob(3000)") }
        let rows = try await writer.write { db in try db.integer("SELECT count(*) FROM t WHERE length(x) = 3000") }
        #expect(rows == 3000)
    }
}
