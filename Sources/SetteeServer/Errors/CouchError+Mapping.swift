import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeReplicator
import SetteeStore
import SetteeViews

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
        case let javaScript as JavaScriptError: self = CouchError(javaScript: javaScript, in: .map)
        default: self = CouchError(500, "unknown_error", "\(type(of: error))")
        }
    }

    /// The store's own table (`StoreError.couchAnswer`, shared with the replicator). A
    /// 5xx refusal is a validate_doc_update's (DocumentValidation): JavaScript's.
    init(store: StoreError) {
        self.init(answer: store.couchAnswer)
        if case .rejected(.refused(let status, _, _)) = store, status >= 500 { isFromJavaScript = true }
    }

    init(answer: CouchAnswer) { self.init(answer.status, answer.error, answer.reason) }

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
        case .directoryInUse: self = CouchError(409, "conflict", replication.description)
        case .fileEndpointRefused: self = CouchError(403, "forbidden", replication.description)
        case .cancelled: self = CouchError(500, "replication_failed", "cancelled")
        case .revisionMissing, .peerError, .malformedAnswer, .unreachable, .certificateMismatch, .spoolFailed:
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
    static let insufficientStorageError = CouchAnswer.insufficientStorageError

    /// The name rule's text, as CouchDB words it.
    static func illegalDatabaseNameReason(_ name: String) -> String { CouchAnswer.illegalDatabaseNameReason(name) }

    /// Whether this error deserves a log line of its own (server faults). A 501 is a
    /// deliberate answer (views, shows and the like), not a fault; nor is `all_dbs_active`,
    /// which the store logs once a minute at most, however many requests meet it.
    var isServerFault: Bool { status >= 500 && status != 501 && error != "all_dbs_active" }
}
