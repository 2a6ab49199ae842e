internal import CSQLite

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null
}

/// A prepared statement owned by one `Connection`, cached and reused by it.
///
/// Not thread-safe: used only on the queue that owns its connection.
final class Statement {
    let sql: String
    private(set) var handle: OpaquePointer?
    private let connection: OpaquePointer
    private let parameterCount: Int

    init(connection: OpaquePointer, sql: String) throws {
        self.sql = sql
        self.connection = connection
        var statement: OpaquePointer?
        try SQLiteError.check(sqlite3_prepare_v2(connection, sql, -1, &statement, nil), connection, sql: sql)
        handle = statement
        parameterCount = Int(sqlite3_bind_parameter_count(statement))
    }

    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    /// Resets the statement and binds `values` to parameters 1...n.
    ///
    /// Every parameter is bound on every call, so no value of the previous run can
    /// linger and `sqlite3_clear_bindings` (about 1 % of a bulk write) is not needed.
    func bind(_ values: [SQLiteValue]) throws {
        precondition(values.count == parameterCount, "\(values.count) values for \(parameterCount) parameters: \(sql)")
        sqlite3_reset(handle)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    private func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .text(let text):
            // Bound by byte count, so text with NUL characters survives intact; the
            // string's own UTF-8 storage is bound (SQLite copies it), no array made.
            var text = text
            code = text.withUTF8 { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    chars.baseAddress.map {
                        sqlite3_bind_text(handle, index, $0, Int32(chars.count), settee_sqlite_transient())
                    } ?? sqlite3_bind_text(handle, index, "", 0, settee_sqlite_transient())
                }
            }
        case .blob(let bytes):
            // A nil pointer would bind NULL: an empty blob must stay a zero-length blob.
            code = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map {
                    sqlite3_bind_blob(handle, index, $0, Int32(buffer.count), settee_sqlite_transient())
                } ?? sqlite3_bind_zeroblob(handle, index, 0)
            }
        case .null:
            code = sqlite3_bind_null(handle, index)
        }
        try SQLiteError.check(code, connection, sql: sql)
    }

    /// Binds `bytes` to parameter `index` without SQLite's copy of them, runs the
    /// statement to its end, and unbinds them: for a blob of a hundred kilobytes the
    /// copy was a `malloc`, a `memcpy` and a `free` each (bench/replicate).
    func runBindingBorrowed(_ bytes: [UInt8], at index: Int32) throws {
        try bytes.withUnsafeBytes { buffer in
            let code = buffer.baseAddress.map {
                sqlite3_bind_blob(handle, index, $0, Int32(buffer.count), settee_sqlite_static())
            } ?? sqlite3_bind_zeroblob(handle, index, 0)
            try SQLiteError.check(code, connection, sql: sql)
            // SQLite may read a static binding until it is replaced: never past this closure.
            defer {
                sqlite3_reset(handle)
                sqlite3_bind_null(handle, index)
            }
            while try step() {}
        }
    }

    /// Runs a statement of three parameters (a blob, an integer, a blob) to its end, the
    /// blobs bound in place without SQLite's copy (`runBindingBorrowed`): a key index's
    /// row insert, 100,000 of them in a build.
    func run(borrowing first: UnsafeRawBufferPointer, _ integer: Int64, _ last: UnsafeRawBufferPointer) throws {
        sqlite3_reset(handle)
        // SQLite may read a static binding until it is replaced: never past this call.
        defer {
            sqlite3_reset(handle)
            sqlite3_bind_null(handle, 1)
            sqlite3_bind_null(handle, 3)
        }
        try bindBorrowed(first, at: 1)
        try SQLiteError.check(sqlite3_bind_int64(handle, 2, integer), connection, sql: sql)
        try bindBorrowed(last, at: 3)
        while try step() {}
    }

    private func bindBorrowed(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        // A nil pointer would bind NULL: an empty blob must stay a zero-length blob.
        let code = bytes.baseAddress.map {
            sqlite3_bind_blob(handle, index, $0, Int32(bytes.count), settee_sqlite_static())
        } ?? sqlite3_bind_zeroblob(handle, index, 0)
        try SQLiteError.check(code, connection, sql: sql)
    }

    /// Steps once: true when a row is available, false when done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw SQLiteError.error(code, connection, sql: sql)
        }
    }

    func reset() { sqlite3_reset(handle) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// Columns in a result row.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func text(_ column: Int32) -> String? {
        guard !isNull(column), let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's text parsed as a revision id, without an intermediate `String`.
    func revisionID(_ column: Int32) -> RevisionID? {
        guard !isNull(column), let pointer = sqlite3_column_text(handle, column) else { return nil }
        return RevisionID(utf8: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))))
    }

    func blob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
