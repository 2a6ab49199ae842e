internal import CSQLite

/// Turns SQLite result codes into `StoreError.sqlite`, carrying the code, the
/// connection's message and the statement, so a failure can be debugged from the log alone.
enum SQLiteError {
    /// Throws `StoreError.sqlite` unless `code` is `SQLITE_OK`.
    static func check(_ code: Int32, _ handle: OpaquePointer?, sql: String) throws {
        guard code != SQLITE_OK else { return }
        throw error(code, handle, sql: sql)
    }

    static func error(_ code: Int32, _ handle: OpaquePointer?, sql: String) -> StoreError {
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        return StoreError.sqlite(code: code, message: message, sql: sql)
    }
}
