internal import CSQLite
internal import CZlib

/*
 A CRC-32 (zlib's) of every revision body, kept beside it in `revs.crc`, so a body changed
 inside the file — a flipped bit on an SD card, an edit — is noticed when read rather than
 served with its old `_rev`. SQLite checks its own structures (`PRAGMA quick_check`) but not
 what a record holds; CouchDB checks an MD5 of each record it reads (couch_file).

 Reads go through the SQL function `settee_body(json, crc)`, which returns the body when it
 matches and otherwise fails the statement with SQLITE_CORRUPT — the error any other damage
 gives — so every query that selects a body checks it, and the reader marks the database
 damaged as it does for a malformed page. Rows written before the column (crc NULL) are
 served unchecked.
*/
enum BodyChecksum {
    /// The checksum stored with `body` (nil for none).
    static func of(_ body: [UInt8]?) -> Int64? {
        guard let body else { return nil }
        return Int64(body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    /// `settee_body(json, crc)` on `db`: what SELECTs read bodies through; and
    /// `settee_crc(json)`, the checksum itself, for `settee check` to list every mismatch.
    static func register(on db: OpaquePointer) {
        _ = sqlite3_create_function_v2(db, "settee_crc", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, arguments in
            guard let context, let arguments, let json = arguments[0], sqlite3_value_type(json) == SQLITE_BLOB else {
                return sqlite3_result_null(context)
            }
            let length = Int(sqlite3_value_bytes(json))
            let crc = sqlite3_value_blob(json).map { crc32(0, $0.assumingMemoryBound(to: Bytef.self), uInt(length)) }
                ?? crc32(0, nil, 0)
            sqlite3_result_int64(context, Int64(crc))
        }, nil, nil, nil)
        _ = sqlite3_create_function_v2(db, "settee_body", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, arguments in
            guard let context, let arguments, let json = arguments[0] else { return }
            guard sqlite3_value_type(json) == SQLITE_BLOB, let crc = arguments[1],
                  sqlite3_value_type(crc) == SQLITE_INTEGER else {
                return sqlite3_result_value(context, json)  // no body, or one written before checksums
            }
            let length = Int(sqlite3_value_bytes(json))
            let actual = sqlite3_value_blob(json).map {
                crc32(0, $0.assumingMemoryBound(to: Bytef.self), uInt(length))
            } ?? crc32(0, nil, 0)
            guard Int64(actual) == sqlite3_value_int64(crc) else {
                sqlite3_result_error(context, "a document body does not match its checksum", -1)
                return sqlite3_result_error_code(context, SQLITE_CORRUPT)
            }
            sqlite3_result_value(context, json)
        }, nil, nil, nil)
    }

    /// Schema migration 9 → 10: the column (NULL for the rows already there). Once only:
    /// ALTER TABLE cannot say "if not exists", and a file may run its migrations again.
    static func migrate(_ db: Connection) throws {
        var hasColumn = false
        try db.query("SELECT 1 FROM pragma_table_info('revs') WHERE name = 'crc'") { _ in hasColumn = true }
        if !hasColumn { try db.execute("ALTER TABLE revs ADD COLUMN crc INTEGER;") }
    }
}
