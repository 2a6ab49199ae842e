internal import SetteeStore
internal import SetteeDocuments
internal import SetteeJSON
internal import SetteeReplicator
internal import SetteeServer

/// Every failure of the `Settee` API, each naming its cause. Nothing is written when a
/// write throws one of these (a bulk save reports per-document failures in its result
/// instead), and none of them leaves the process or the data directory in a bad state.
public enum SetteeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another process holds the data directory (`settee serve`, or another program
    /// embedding Settee), or it is already open in this process.
    case directoryLocked(path: String)
    /// The data directory cannot be created, read or written: the operation, path and `errno`.
    case io(operation: String, path: String, errno: Int32)
    /// A database name outside CouchDB's rule `^[a-z][a-z0-9_$()+/-]*$`.
    case invalidDatabaseName(String)
    case databaseNotFound(String)
    case databaseExists(String)
    /// A document id CouchDB refuses (empty, or a reserved `_` prefix).
    case invalidDocumentID(String)
    /// A revision string that is not `N-hex`.
    case invalidRevision(String)
    /// The write's revision is not the document's current one (or the document exists
    /// and no revision was given). `currentRevision` is the winner now, nil when the
    /// document is deleted.
    case conflict(id: String, currentRevision: String?)
    /// No such document (or attachment): CouchDB's reason, "missing" or "deleted".
    case notFound(id: String, reason: String)
    /// A document's JSON is larger than `max_document_size` bytes.
    case documentTooLarge(id: String, limit: Int)
    /// A value that does not encode to a JSON object, or stored JSON that does not
    /// decode to the type asked for: what the coder said.
    case encoding(String)
    case decoding(id: String, reason: String)
    /// A document CouchDB's rules refuse (a bad `_`-member, a bad attachment).
    case invalidDocument(String)
    /// The writer may not make this change (a design document by a non-admin,
    /// `validate_doc_update`, `_users`' rules): 403 or 401 in HTTP terms.
    case forbidden(String)
    case unauthorized(String)
    /// A selector, sort, index definition or bookmark Mango refuses: its error word and reason.
    case invalidQuery(error: String, reason: String)
    /// The database file was found damaged and is read-only until `settee check --repair`.
    case damaged(database: String, reason: String)
    /// A database file written by a newer Settee.
    case newerFormat(path: String)
    /// SQLite failed: its result code and message.
    case storage(code: Int32, message: String)
    /// The disk is full: nothing was written (writes succeed again once space is freed).
    case diskFull(String)
    /// Too much is open at once (every database allowed open is busy): try again shortly.
    case busy(String)
    /// A replication could not start or stopped: the replicator's reason.
    case replication(String)
    /// The listener could not start (a port in use, a bad address).
    case listener(String)
    /// Design document functions (views, JavaScript conflict policies) need JavaScriptCore,
    /// which could not be loaded (``Database/isJavaScriptAvailable``): why.
    case javaScriptUnavailable(String)
    /// A design document function failed (a map or reduce threw, ran past its time or
    /// memory limit, or a reduce did not shrink), or a view's index could not be brought up
    /// to date: CouchDB's error word (`os_process_error`, `reduce_error`, ...) and reason.
    case designFunction(error: String, reason: String)
    /// ``Database/resolveConflicts()`` on a database with neither a declared conflicts
    /// policy nor a Swift resolver.
    case noConflictPolicy(database: String)
    /// The data directory was closed.
    case closed

    public var description: String {
        switch self {
        case .directoryLocked(let path): "the data directory \(path) is in use by another process"
        case .io(let operation, let path, let errno): "\(operation) \(path) failed (errno \(errno))"
        case .invalidDatabaseName(let name): "invalid database name: \(name)"
        case .databaseNotFound(let name): "database \(name) does not exist"
        case .databaseExists(let name): "database \(name) already exists"
        case .invalidDocumentID(let reason): "invalid document id: \(reason)"
        case .invalidRevision(let text): "invalid revision: \(text)"
        case .conflict(let id, let current): "conflict on \(id) (current revision \(current ?? "none"))"
        case .notFound(let id, let reason): "\(id): \(reason)"
        case .documentTooLarge(let id, let limit): "\(id) exceeds max_document_size (\(limit) bytes)"
        case .encoding(let reason): "cannot encode the document: \(reason)"
        case .decoding(let id, let reason): "cannot decode \(id): \(reason)"
        case .invalidDocument(let reason), .forbidden(let reason), .unauthorized(let reason): reason
        case .invalidQuery(let error, let reason): "\(error): \(reason)"
        case .damaged(let database, let reason): "\(database) is damaged: \(reason)"
        case .newerFormat(let path): "\(path) was written by a newer Settee"
        case .storage(let code, let message): "SQLite error \(code): \(message)"
        case .diskFull(let detail): "the disk is full: \(detail)"
        case .busy(let reason): "busy: \(reason)"
        case .replication(let reason): "replication failed: \(reason)"
        case .listener(let reason): "the listener could not start: \(reason)"
        case .javaScriptUnavailable(let reason): reason
        case .designFunction(let error, let reason): "\(error): \(reason)"
        case .noConflictPolicy(let database): "\(database) has no conflicts policy"
        case .closed: "the data directory is closed"
        }
    }
}

extension SetteeError {
    /// The one mapping of the lower layers' errors onto this enum. `id` names the
    /// document a per-document error is about.
    static func from(_ error: any Error, id: String = "", maxDocumentSize: Int = 0) -> SetteeError {
        switch error {
        case let error as SetteeError: return error
        case let error as StoreError: return from(store: error, id: id, maxDocumentSize: maxDocumentSize)
        case let error as DocumentError: return from(document: error, id: id, maxDocumentSize: maxDocumentSize)
        case let error as MangoError: return .invalidQuery(error: error.error, reason: error.reason)
        case let error as EmbeddedFailure: return from(failure: error, id: id)
        case let error as ReplicationError: return .replication(error.description)
        case let error as JSONError: return .invalidDocument(String(describing: error))
        case is CancellationError: return .replication("cancelled")
        default: return .replication(String(describing: error))
        }
    }

    static func from(store error: StoreError, id: String, maxDocumentSize: Int) -> SetteeError {
        switch error {
        case .databaseNotFound(let name): .databaseNotFound(name)
        case .databaseExists(let name): .databaseExists(name)
        case .invalidDatabaseName(let name): .invalidDatabaseName(name)
        case .documentNotFound(let reason): .notFound(id: id, reason: reason)
        case .conflict: .conflict(id: id, currentRevision: nil)
        case .invalidRevision(let text): .invalidRevision(text)
        case .invalidDocumentID(let reason): .invalidDocumentID(reason)
        case .invalidDocument(let reason), .attachmentMismatch(let reason): .invalidDocument(reason)
        case .missingStub(let document, let attachment): .invalidDocument("\(document) has no attachment \(attachment)")
        case .attachmentNotFound(let name): .notFound(id: id, reason: "missing attachment \(name)")
        case .attachmentDamaged(let digest, let detail): .damaged(database: id, reason: "attachment \(digest): \(detail)")
        case .documentTooLarge(let limit): .documentTooLarge(id: id, limit: limit)
        case .rejected(.forbidden(let reason)): .forbidden(reason)
        case .rejected(.unauthorized(let reason)): .unauthorized(reason)
        case .rejected(.refused(_, let word, let reason)): .invalidDocument("\(word): \(reason)")
        case .notEnoughSpaceToCompact(let path, let needed, let available):
            .diskFull("compacting \(path) needs \(needed) bytes free and \(available) are")
        case _ where error.isDiskFull: .diskFull("\(error)")
        case .sqlite(let code, let message, _): .storage(code: code, message: message)
        case .io(let operation, let path, let errno): .io(operation: operation, path: path, errno: errno)
        case .databaseDamaged(let name, let reason): .damaged(database: name, reason: reason)
        case .newerSchema(let path, _, _): .newerFormat(path: path)
        case .directoryLocked(let path): .directoryLocked(path: path)
        case .allDatabasesActive(let limit): .busy("all \(limit) open databases ([couchdb] max_dbs_open) are busy")
        }
    }

    static func from(document error: DocumentError, id: String, maxDocumentSize: Int) -> SetteeError {
        switch error {
        case .invalidDocumentID(let reason): .invalidDocumentID(reason)
        case .invalidRevision: .invalidRevision(id)
        case .tooLarge: .documentTooLarge(id: id, limit: maxDocumentSize)
        case .notFound(let reason): .notFound(id: id, reason: reason)
        case .badSpecialMember(let name): .invalidDocument("Bad special document member: \(name)")
        case .invalidMember(let reason), .badRequest(let reason): .invalidDocument(reason)
        case .unsupportedAttachmentEncoding(let encoding): .invalidDocument("unsupported attachment encoding \(encoding)")
        }
    }
}

extension SetteeError {
    /// An answer of the server's own code (a view query, a conflict resolution), by its
    /// HTTP status, as CouchDB would have answered it.
    static func from(failure: EmbeddedFailure, id: String) -> SetteeError {
        switch (failure.status, failure.error) {
        case (501, _): .javaScriptUnavailable(failure.reason)
        case (404, _): .notFound(id: id, reason: failure.reason)
        case (401, _): .unauthorized(failure.reason)
        case (403, _): .forbidden(failure.reason)
        case (503, _): .busy(failure.reason)
        case (507, _): .diskFull(failure.reason)
        case (_, "file_corruption"): .damaged(database: id, reason: failure.reason)
        case (400, _): .invalidQuery(error: failure.error, reason: failure.reason)
        default: .designFunction(error: failure.error, reason: failure.reason)
        }
    }
}
