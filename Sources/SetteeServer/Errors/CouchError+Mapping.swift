import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeReplicator
import SetteeStore

/// THE table from every lower layer's error to CouchDB's `{status, error, reason}`
/// (as CouchDB's `chttpd:error_info/1`). Anything unmapped is a 500 and a log line.
extension CouchError {
    init(mapping error: any Error) {
        switch error {
        case let couch as CouchError: self = couch
        case let store as StoreError: self = CouchError(store: store)
        case let http as HTTPError: self = CouchError(http: http)
        case let document as DocumentError: self = CouchError(document: document)
        case let replication as ReplicationError: self = CouchError(replication: replication)
        case let mango as MangoError: self = CouchError(mango.status, mango.error, mango.reason)
        case let selector as SelectorError: self = CouchError(400, selector.error, selector.reason)
        case is JSONError: self = .invalidJSON
        default: self = CouchError(500, "unknown_error", "\(type(of: error))")
        }
    }

    init(store: StoreError) {
        switch store {
        case .databaseNotFound: self = .databaseNotFound
        case .databaseExists:
            self = CouchError(412, "file_exists", "The database could not be created, the file already exists.")
        case .invalidDatabaseName(let name):
            self = CouchError(400, "illegal_database_name", Self.illegalDatabaseNameReason(name))
        case .documentNotFound(let reason): self = .notFound(reason)
        case .conflict: self = .conflict
        case .invalidRevision(let text): self = .badRequest("Invalid rev format: \(text)")
        case .invalidDocumentID(let reason): self = CouchError(400, "illegal_docid", reason)
        case .invalidDocument(let reason): self = CouchError(400, "doc_validation", reason)
        case .missingStub(let document, let attachment):
            self = CouchError(412, "missing_stub", "Invalid attachment stub in \(document) for \(attachment)")
        case .attachmentMismatch(let reason): self = .badRequest(reason)
        case .attachmentNotFound: self = .notFound("Document is missing attachment")
        // CouchDB's words for data failing its checksum (couch_file.erl `pread_iolist`:
        // `exit({file_corruption, <<"file corruption">>})`, rendered by chttpd as 500).
        case .attachmentDamaged: self = CouchError(500, "file_corruption", "file corruption")
        case .databaseDamaged(let name, let reason):
            // The reason's first clause only: the rest (SQL text, file paths) is for the log.
            let summary = reason.split(separator: " (", maxSplits: 1).first.map(String.init) ?? reason
            self = CouchError(500, "file_corruption", "\(name): \(summary)")
        case .documentTooLarge: self = CouchError(413, "document_too_large", "Document exceeds max_document_size")
        case .rejected(.forbidden(let reason)): self = CouchError(403, "forbidden", reason)
        case .rejected(.unauthorized(let reason)): self = CouchError(401, "unauthorized", reason)
        case .rejected(.refused(let status, let error, let reason)):
            // A 5xx refusal is a validate_doc_update's (DocumentValidation): JavaScript's.
            self = status >= 500 ? .fromJavaScript(status, error, reason) : CouchError(status, error, reason)
        // A read that met damage (a malformed page, a body failing its checksum: SQLITE_CORRUPT,
        // SQLITE_NOTADB) is CouchDB's corruption answer too; the store has marked the database.
        case .sqlite(let code, _, _) where code == 11 || code == 26:
            self = CouchError(500, "file_corruption", "file corruption")
        // A full disk: CouchDB 3.4.3's one defined answer for it, 507 from its disk monitor
        // (couch_db.erl `update_docs`: "database_dir is too full"; chttpd.erl `error_info`
        // spells the error `insufficent_storage`, and clients match that string). Without
        // the monitor (off by default) its writes crash on `{error, enospc}` and answer
        // 500 `{"error":"error","reason":"internal_server_error"}`.
        case .sqlite where store.isDiskFull, .io where store.isDiskFull: self = .insufficientStorage
        case .notEnoughSpaceToCompact(_, let needed, let available):
            self = CouchError(507, Self.insufficientStorageError,
                              "Compaction needs \(needed) bytes free (twice the data) and \(available) are; nothing was started.")
        case .sqlite, .io, .directoryLocked: self = CouchError(500, "internal_server_error", "The database could not be accessed.")
        case .newerSchema:
            self = CouchError(500, "internal_server_error", "The database file was written by a newer version of Settee.")
        // CouchDB's couch_server answers `all_dbs_active` when max_dbs_open is reached and
        // no open database is idle; 503 because a retry shortly after may well succeed.
        case .allDatabasesActive(let limit):
            self = CouchError(503, "all_dbs_active",
                              "All \(limit) open databases ([couchdb] max_dbs_open) are busy; retry shortly.")
        }
    }

    init(document: DocumentError) {
        switch document {
        case .badSpecialMember(let name): self = CouchError(400, "doc_validation", "Bad special document member: \(name)")
        case .invalidMember(let reason): self = CouchError(400, "doc_validation", reason)
        case .invalidDocumentID(let reason): self = CouchError(400, "illegal_docid", reason)
        case .invalidRevision: self = .badRequest("Invalid rev format")
        case .badRequest(let reason): self = .badRequest(reason)
        case .tooLarge(let reason): self = CouchError(413, "document_too_large", reason)
        case .unsupportedAttachmentEncoding(let encoding):
            self = CouchError(415, "bad_content_type", "Unsupported attachment encoding: \(encoding)")
        case .notFound(let reason): self = .notFound(reason)
        }
    }

    /// A replication that could not start or finish, as CouchDB 3.4.3's `_replicate` says it.
    init(replication: ReplicationError) {
        switch replication {
        case .databaseNotFound(let name):
            self = CouchError(500, "db_not_found", "could not open \(name)\(name.contains("://") ? "/" : "")")
        case .invalidEndpoint(let text): self = .badRequest("Invalid endpoint: \(text)")
        case .invalidOption(let why): self = .badRequest(why)
        case .missingEndpoint(let name): self = .badRequest("Missing \(name)")
        case .peerError(let peer, let status, _, _) where status == 401 || status == 403:
            self = CouchError(status, "unauthorized", "unauthorized to access or create database \(peer)/")
        case .filterNotFound: self = .notFound(replication.description)
        case .cancelled: self = CouchError(500, "replication_failed", "cancelled")
        case .revisionMissing, .peerError, .malformedAnswer, .unreachable, .certificateMismatch:
            self = CouchError(500, "replication_failed", replication.description)
        }
    }

    init(http: HTTPError) {
        switch http {
        case .bodyTooLarge: self = CouchError(413, "too_large", "the request entity is too large")
        case .headersTooLarge: self = CouchError(431, "bad_request", "Request header fields too large")
        case .malformedRequest(let why), .malformedChunk(let why): self = .badRequest(why)
        case .truncatedBody: self = .badRequest("Incomplete request body")
        case .timedOut: self = CouchError(408, "request_timeout", "The request took too long")
        case .unsupportedTransferCoding(let coding):
            self = CouchError(501, "not_implemented", "Transfer-Encoding \(coding) is not supported")
        case .versionNotSupported(let version):
            self = CouchError(505, "bad_request", "\(version) is not supported")
        case .connectionClosed, .socket: self = CouchError(400, "bad_request", "Connection lost")
        }
    }

    /// CouchDB's error for a full disk, as chttpd.erl sends it (sic).
    static let insufficientStorageError = "insufficent_storage"

    /// A write refused for want of space (CouchDB's disk monitor's words).
    static let insufficientStorage = CouchError(507, insufficientStorageError, "database_dir is too full")

    /// The name rule's text, as CouchDB words it.
    static func illegalDatabaseNameReason(_ name: String) -> String {
        "Name: '\(name)'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter."
    }

    /// Whether this error deserves a log line of its own (server faults). A 501 is a
    /// deliberate answer (views, shows and the like), not a fault; nor is `all_dbs_active`,
    /// which the store logs once a minute at most, however many requests meet it.
    var isServerFault: Bool { status >= 500 && status != 501 && error != "all_dbs_active" }
}
