/// CouchDB's `{status, error, reason}` for an error: what a client reads, whether the
/// error reaches it through the server's HTTP answer or a replicator's write failure.
public struct CouchAnswer: Sendable, Equatable {
    public let status: Int
    public let error: String
    public let reason: String

    public init(_ status: Int, _ error: String, _ reason: String) {
        self.status = status
        self.error = error
        self.reason = reason
    }

    /// CouchDB's error for a full disk, as chttpd.erl sends it (sic).
    public static let insufficientStorageError = "insufficent_storage"

    /// A write refused for want of space (CouchDB's disk monitor's words).
    public static let insufficientStorage = CouchAnswer(507, insufficientStorageError, "database_dir is too full")

    /// The database name rule's text, as CouchDB words it.
    public static func illegalDatabaseNameReason(_ name: String) -> String {
        "Name: '\(name)'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter."
    }
}

/// THE table from every store error to CouchDB's answer (as CouchDB's `chttpd:error_info/1`),
/// here below the server so that the server (`CouchError+Mapping`) and the replicator
/// (`LocalPeer`'s write failures) say the same of the same error.
extension StoreError {
    public var couchAnswer: CouchAnswer {
        switch self {
        case .databaseNotFound: CouchAnswer(404, "not_found", "Database does not exist.")
        case .databaseExists: CouchAnswer(412, "file_exists", "The database could not be created, the file already exists.")
        case .invalidDatabaseName(let name):
            CouchAnswer(400, "illegal_database_name", CouchAnswer.illegalDatabaseNameReason(name))
        case .documentNotFound(let reason): CouchAnswer(404, "not_found", reason)
        case .conflict: CouchAnswer(409, "conflict", "Document update conflict.")
        case .invalidRevision(let text): CouchAnswer(400, "bad_request", "Invalid rev format: \(text)")
        case .invalidDocumentID(let reason): CouchAnswer(400, "illegal_docid", reason)
        case .invalidDocument(let reason): CouchAnswer(400, "doc_validation", reason)
        case .missingStub(let document, let attachment):
            CouchAnswer(412, "missing_stub", "Invalid attachment stub in \(document) for \(attachment)")
        case .attachmentMismatch(let reason): CouchAnswer(400, "bad_request", reason)
        case .attachmentNotFound: CouchAnswer(404, "not_found", "Document is missing attachment")
        // CouchDB's words for data failing its checksum (couch_file.erl `pread_iolist`:
        // `exit({file_corruption, <<"file corruption">>})`, rendered by chttpd as 500).
        case .attachmentDamaged: CouchAnswer(500, "file_corruption", "file corruption")
        case .databaseDamaged(let name, let reason): Self.damaged(name, reason)
        case .documentTooLarge: CouchAnswer(413, "document_too_large", "Document exceeds max_document_size")
        case .rejected(let rejection): rejection.couchAnswer
        default: faultAnswer
        }
    }

    /// The reason's first clause only: the rest (SQL text, file paths) is for the log.
    private static func damaged(_ name: String, _ reason: String) -> CouchAnswer {
        let summary = reason.split(separator: " (", maxSplits: 1).first.map(String.init) ?? reason
        return CouchAnswer(500, "file_corruption", "\(name): \(summary)")
    }

    /// The answers for what failed beneath the request (disk, SQLite, limits).
    private var faultAnswer: CouchAnswer {
        switch self {
        // A read that met damage (a malformed page, a body failing its checksum: SQLITE_CORRUPT,
        // SQLITE_NOTADB) is CouchDB's corruption answer too; the store has marked the database.
        case .sqlite(let code, _, _) where code == 11 || code == 26: CouchAnswer(500, "file_corruption", "file corruption")
        // A full disk: CouchDB 3.4.3's one defined answer for it, 507 from its disk monitor
        // (couch_db.erl `update_docs`: "database_dir is too full"; chttpd.erl `error_info`
        // spells the error `insufficent_storage`, and clients match that string). Without
        // the monitor (off by default) its writes crash on `{error, enospc}` and answer
        // 500 `{"error":"error","reason":"internal_server_error"}`.
        case .sqlite where isDiskFull, .io where isDiskFull: .insufficientStorage
        case .notEnoughSpaceToCompact(_, let needed, let available):
            CouchAnswer(507, CouchAnswer.insufficientStorageError,
                        "Compaction needs \(needed) bytes free (twice the data) and \(available) are; nothing was started.")
        case .newerSchema:
            CouchAnswer(500, "internal_server_error", "The database file was written by a newer version of Settee.")
        // CouchDB's couch_server answers `all_dbs_active` when max_dbs_open is reached and
        // no open database is idle; 503 because a retry shortly after may well succeed.
        case .allDatabasesActive(let limit):
            CouchAnswer(503, "all_dbs_active", "All \(limit) open databases ([couchdb] max_dbs_open) are busy; retry shortly.")
        default: CouchAnswer(500, "internal_server_error", "The database could not be accessed.")
        }
    }
}

extension WriteRejection {
    /// A policy's refusal as CouchDB answers it (couch_query_servers:validate_doc_update/6).
    public var couchAnswer: CouchAnswer {
        switch self {
        case .forbidden(let reason): CouchAnswer(403, "forbidden", reason)
        case .unauthorized(let reason): CouchAnswer(401, "unauthorized", reason)
        case .refused(let status, let error, let reason): CouchAnswer(status, error, reason)
        }
    }
}
