internal import Glibc

/// The store's one error enum. The server maps each case to CouchDB's
/// `{status, error, reason}` in one table (SetteeServer `CouchError+Mapping`).
public enum StoreError: Error, Sendable, Equatable {
    case databaseNotFound(String)
    case databaseExists(String)
    case invalidDatabaseName(String)
    /// `reason` is CouchDB's: "missing" (never existed) or "deleted".
    case documentNotFound(reason: String)
    /// A write whose base revision is not a leaf, or no base on a live document.
    case conflict
    /// A malformed revision id, or a history that does not fit it.
    case invalidRevision(String)
    /// An illegal document id (reason as CouchDB words it).
    case invalidDocumentID(String)
    /// A document body that breaks CouchDB's rules.
    case invalidDocument(String)
    /// A stub naming an attachment the base revision does not have.
    case missingStub(document: String, attachment: String)
    /// An attachment's bytes do not match its declared length or digest.
    case attachmentMismatch(String)
    case attachmentNotFound(String)
    /// A stored attachment's bytes no longer match their digest (damaged on disk):
    /// `digest` is the one recorded, `detail` what was found and where.
    case attachmentDamaged(digest: String, detail: String)
    case documentTooLarge(limit: Int)
    /// A `WritePolicy` refused the update.
    case rejected(WriteRejection)
    /// A SQLite call failed: its result code, message and the statement.
    case sqlite(code: Int32, message: String, sql: String)
    /// A file operation failed.
    case io(operation: String, path: String, errno: Int32)
    /// The database was found damaged (`DatabaseDamage`) and is read-only.
    case databaseDamaged(name: String, reason: String)
    /// Compaction refused to start: the file system has `available` bytes free where it
    /// needs `needed` (`Database.requireSpaceToCompact`).
    case notEnoughSpaceToCompact(path: String, needed: Int64, available: Int64)
    /// A database file written by a newer Settee: its schema `version` is past the
    /// `supported` one, and writing it with the older code would corrupt it.
    case newerSchema(path: String, version: Int, supported: Int)
    /// Another process (or another open in this one) holds the data directory
    /// (`DataDirectoryLock`): `settee serve` or a program embedding Settee.
    case directoryLocked(path: String)
    /// Opening one more database would pass `[couchdb] max_dbs_open` (`limit`) and every
    /// open one is busy, so none can be closed (CouchDB's `all_dbs_active`).
    case allDatabasesActive(limit: Int)
}

extension StoreError {
    /// Whether the file system ran out of space (or quota): SQLite's `SQLITE_FULL` (13),
    /// which its unix VFS reports for a write that failed with ENOSPC, or a blob write's
    /// ENOSPC or EDQUOT. Such a write stored nothing; the same write can succeed once
    /// space is freed, with no restart.
    public var isDiskFull: Bool {
        switch self {
        case .sqlite(let code, _, _): return code & 0xFF == 13
        case .io(_, _, let number): return number == ENOSPC || number == EDQUOT
        case .notEnoughSpaceToCompact: return true
        default: return false
        }
    }

    /// Whether a write met a failing disk: SQLite's SQLITE_IOERR (10, extended codes
    /// included, but SQLITE_IOERR_NOMEM, 3082, which is memory) or a blob write's EIO.
    /// After a failed fsync the page cache may no longer match the disk (the "fsyncgate"
    /// lesson, https://wiki.postgresql.org/wiki/Fsync_Errors): nothing is retried, the
    /// database turns read-only (`Database.markDamaged`).
    public var isIOFailure: Bool {
        switch self {
        case .sqlite(let code, _, _): return code & 0xFF == 10 && code != 3082
        case .io(_, _, let number): return number == EIO
        default: return false
        }
    }

    /// Whether SQLite may have rolled the whole transaction back after this error:
    /// SQLITE_FULL, SQLITE_IOERR (10), SQLITE_NOMEM (7)
    /// (https://sqlite.org/lang_transaction.html, "Response To Errors Within A Transaction").
    var mayEndTransaction: Bool {
        guard case .sqlite(let code, _, _) = self else { return false }
        return [13, 10, 7].contains(code & 0xFF)
    }

    /// Whether SQLite found the file malformed: `SQLITE_CORRUPT` (11) or `SQLITE_NOTADB`
    /// (26), extended codes included (https://sqlite.org/rescode.html).
    var isCorruption: Bool {
        guard case .sqlite(let code, _, _) = self else { return false }
        return code & 0xFF == 11 || code & 0xFF == 26
    }
}
