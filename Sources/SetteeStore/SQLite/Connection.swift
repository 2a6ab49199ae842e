internal import CSQLite

/// One SQLite connection with its cache of prepared statements.
///
/// Not thread-safe: each connection is used from exactly one serial queue
/// (the writer's or one reader's), which is why it is explicitly not `Sendable`.
final class Connection {
    let path: String
    private var handle: OpaquePointer?
    private var statements: [String: Statement] = [:]
    /// Called with the SQL of every statement run through `statement(_:_:)`; lets
    /// store tests assert which statements a write issued.
    var statementObserver: ((String) -> Void)?

    /// Process-wide SQLite settings, applied once before the first connection opens
    /// (https://sqlite.org/c3ref/c_config_covering_index_scan.html).
    /// Memory statistics off: with them on, every allocation and free inside SQLite
    /// takes a global mutex to count bytes nobody reads (3 % of a bulk write). No page
    /// slab per connection: each cache took 20 pages at once on its first read, about
    /// 86 KB whatever the file's size; 400 open one-document databases (three
    /// connections each) held 202 MiB of anonymous memory with it, 120 MiB without.
    ///
    /// Sub-journals keep SQLite's default spill threshold (64 KiB), deliberately.
    /// `SQLITE_CONFIG_STMTJRNL_SPILL` at 4 MiB (ddd20b1, to keep a 1,000-document batch's
    /// savepoint copies off a temporary file) broke every savepoint past 4 MiB with
    /// SQLite 3.40.1: the in-memory sub-journal is kept in chunks of the threshold's
    /// size and, when it spills, each chunk goes to the file in one `xWrite`, which
    /// unix's `seekAndWriteFd` caps at 128 KiB (`nBuf &= 0x1ffff`); the short write is
    /// reported as SQLITE_FULL, "database or disk is full", and the job (a view build,
    /// compaction, a `DROP TABLE`) failed for good (issue 47; `bench/storage_triggers/
    /// stmtjrnl_spill.c` reproduces it with no Settee code).
    private static let configured: Void = {
        _ = settee_sqlite_disable_memstatus()
        _ = settee_sqlite_no_pagecache_slab()
    }()

    /// Opens (creating) the file at `path` and applies the durability pragmas.
    /// - Parameter newFileSettings: pragmas for a file not written yet (`page_size`,
    ///   `auto_vacuum`): they must come before WAL mode, after which a page size is fixed.
    /// - Parameter create: false for a file that must exist already (a database's
    ///   connections opened again after an idle close: a deleted file is not made anew).
    init(path: String, newFileSettings: String? = nil, create: Bool = true) throws {
        _ = Connection.configured
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError.error(code, db, sql: "open \(path)")
            sqlite3_close_v2(db)
            throw error
        }
        handle = db
        BodyChecksum.register(on: db)
        // Another connection may hold the write lock briefly (a reader's checkpoint,
        // compaction): wait rather than fail. https://sqlite.org/c3ref/busy_timeout.html
        sqlite3_busy_timeout(db, Int32(Self.busyTimeoutMilliseconds))
        // WAL: readers never block the writer. synchronous=FULL: a commit is fsynced
        // before it returns, so a 2xx survives power loss (https://sqlite.org/pragma.html#pragma_synchronous).
        if let newFileSettings { try execute(newFileSettings) }
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
    }

    /// How long a statement waits for a lock another connection holds.
    static let busyTimeoutMilliseconds = 10_000

    deinit { close() }

    /// Runs `work` with the busy timeout set to `milliseconds`, then restores it.
    func withBusyTimeout<T>(milliseconds: Int, _ work: () throws -> T) throws -> T {
        let db = try openHandle("busy_timeout")
        sqlite3_busy_timeout(db, Int32(milliseconds))
        defer { sqlite3_busy_timeout(db, Int32(Self.busyTimeoutMilliseconds)) }
        return try work()
    }

    /// Finalizes every cached statement and closes the connection.
    func close() {
        for statement in statements.values { statement.finalize() }
        statements = [:]
        sqlite3_close_v2(handle)
        handle = nil
    }

    private func openHandle(_ sql: String) throws -> OpaquePointer {
        guard let handle else { throw StoreError.sqlite(code: SQLITE_MISUSE, message: "connection closed", sql: sql) }
        return handle
    }

    /// Whether no transaction is open (https://sqlite.org/c3ref/get_autocommit.html): after
    /// SQLITE_FULL, SQLITE_IOERR or SQLITE_NOMEM inside one, SQLite may have rolled the whole
    /// transaction back on its own (https://sqlite.org/lang_transaction.html, "Response To
    /// Errors Within A Transaction").
    var isInAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    /// Copies this connection's database into `destination`'s with SQLite's online backup
    /// API (https://sqlite.org/backup.html), all pages in one step: one read transaction, so
    /// the copy is one consistent snapshot while other connections (other processes too)
    /// go on writing.
    /// - Throws: `StoreError.sqlite`.
    func backUp(into destination: Connection) throws {
        let source = try openHandle("backup"), target = try destination.openHandle("backup")
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw SQLiteError.error(sqlite3_errcode(target), target, sql: "backup \(path)")
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw SQLiteError.error(stepped, source, sql: "backup \(path)") }
        try SQLiteError.check(finished, target, sql: "backup \(path)")
    }

    /// Runs one or more statements with no parameters and no rows.
    func execute(_ sql: String) throws {
        let db = try openHandle(sql)
        try SQLiteError.check(sqlite3_exec(db, sql, nil, nil, nil), db, sql: sql)
    }

    /// The cached prepared statement for `sql`, with `arguments` bound.
    func statement(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Statement {
        let statement = try prepared(sql)
        try statement.bind(arguments)
        return statement
    }

    /// The cached prepared statement for `sql`, nothing bound: for a loop that binds and
    /// steps it many times (`Statement.bind`, `step`, `reset`).
    func prepared(_ sql: String) throws -> Statement {
        let db = try openHandle(sql)
        statementObserver?(sql)
        if let cached = statements[sql] { return cached }
        let statement = try Statement(connection: db, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows.
    func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws {
        let statement = try statement(sql, arguments)
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// Runs `sql` with `arguments`, and `borrowed` bound to the parameter after them
    /// without SQLite's copy of it (`Statement.runBindingBorrowed`).
    func run(_ sql: String, _ arguments: [SQLiteValue], borrowing borrowed: [UInt8]) throws {
        let statement = try statement(sql, arguments + [.null])
        try statement.runBindingBorrowed(borrowed, at: Int32(arguments.count + 1))
    }

    /// Runs a query, calling `row` for each result row.
    func query(_ sql: String, _ arguments: [SQLiteValue] = [], row: (Statement) throws -> Void) throws {
        let statement = try statement(sql, arguments)
        defer { statement.reset() }
        while try statement.step() { try row(statement) }
    }

    /// The first column of the first row as an integer, nil when there is no row or it is NULL.
    func integer(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Int64? {
        var result: Int64?
        try query(sql, arguments) { row in
            if result == nil, !row.isNull(0) { result = row.int64(0) }
        }
        return result
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows the last INSERT, UPDATE or DELETE changed (0 when `ON CONFLICT DO NOTHING` skipped the row).
    var changes: Int64 { sqlite3_changes64(handle) }
}

@available(*, unavailable)
extension Connection: Sendable {}
