@testable import SetteeServer
import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeReplicator
import SetteeStore
import SetteeViews
import Testing

/// One case per row of `CouchError+Mapping` (STYLE rule 11): each lower-layer
/// error becomes CouchDB's status and error word (chttpd:error_info/1).
@Suite struct CouchErrorMappingTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let error: any Error & Sendable
        let status: Int
        let word: String
        let reason: String?
        var testDescription: String { "\(error) → \(status) \(word)" }
    }

    static let storeRows: [Row] = [
        Row(error: StoreError.databaseNotFound("d"), status: 404, word: "not_found", reason: "Database does not exist."),
        Row(error: StoreError.databaseExists("d"), status: 412, word: "file_exists",
            reason: "The database could not be created, the file already exists."),
        Row(error: StoreError.invalidDatabaseName("_x"), status: 400, word: "illegal_database_name",
            reason: CouchError.illegalDatabaseNameReason("_x")),
        Row(error: StoreError.documentNotFound(reason: "deleted"), status: 404, word: "not_found", reason: "deleted"),
        Row(error: StoreError.conflict, status: 409, word: "conflict", reason: "Document update conflict."),
        Row(error: StoreError.invalidRevision("x"), status: 400, word: "bad_request", reason: "Invalid rev format: x"),
        Row(error: StoreError.invalidDocumentID("bad id"), status: 400, word: "illegal_docid", reason: "bad id"),
        Row(error: StoreError.invalidDocument("bad doc"), status: 400, word: "doc_validation", reason: "bad doc"),
        Row(error: StoreError.missingStub(document: "d", attachment: "a"), status: 412, word: "missing_stub",
            reason: "Invalid attachment stub in d for a"),
        Row(error: StoreError.attachmentMismatch("m"), status: 400, word: "bad_request", reason: "m"),
        Row(error: StoreError.attachmentNotFound("a"), status: 404, word: "not_found", reason: "Document is missing attachment"),
        Row(error: StoreError.attachmentDamaged(digest: "md5-x", detail: "d"), status: 500, word: "file_corruption",
            reason: "file corruption"),
        Row(error: StoreError.databaseDamaged(name: "db", reason: "r"), status: 500, word: "file_corruption",
            reason: "db: r"),
        Row(error: StoreError.databaseDamaged(name: "db", reason: "a read found the file malformed (sqlite(...))"),
            status: 500, word: "file_corruption", reason: "db: a read found the file malformed"),
        Row(error: StoreError.sqlite(code: 11, message: "a document body does not match its checksum", sql: "SELECT"),
            status: 500, word: "file_corruption", reason: "file corruption"),
        Row(error: StoreError.documentTooLarge(limit: 1), status: 413, word: "document_too_large",
            reason: "Document exceeds max_document_size"),
        Row(error: StoreError.rejected(.forbidden("no")), status: 403, word: "forbidden", reason: "no"),
        Row(error: StoreError.rejected(.unauthorized("who")), status: 401, word: "unauthorized", reason: "who"),
        Row(error: StoreError.sqlite(code: 1, message: "m", sql: "s"), status: 500, word: "internal_server_error", reason: nil),
        Row(error: StoreError.io(operation: "o", path: "p", errno: 5), status: 500, word: "internal_server_error", reason: nil),
        // A full disk: CouchDB's 507 (chttpd.erl spells it `insufficent_storage`).
        Row(error: StoreError.sqlite(code: 13, message: "database or disk is full", sql: "COMMIT"), status: 507,
            word: "insufficent_storage", reason: "database_dir is too full"),
        Row(error: StoreError.io(operation: "write", path: "p", errno: 28), status: 507, word: "insufficent_storage",
            reason: "database_dir is too full"),
        Row(error: StoreError.io(operation: "write", path: "p", errno: 122), status: 507, word: "insufficent_storage",
            reason: "database_dir is too full"),
        Row(error: StoreError.notEnoughSpaceToCompact(path: "p", needed: 20, available: 10), status: 507,
            word: "insufficent_storage", reason: "Compaction needs 20 bytes free (twice the data) and 10 are; nothing was started."),
        Row(error: StoreError.allDatabasesActive(limit: 20), status: 503, word: "all_dbs_active",
            reason: "All 20 open databases ([couchdb] max_dbs_open) are busy; retry shortly."),
        Row(error: StoreError.newerSchema(path: "p", version: 9, supported: 6), status: 500, word: "internal_server_error",
            reason: nil),
    ]

    static let httpRows: [Row] = [
        Row(error: HTTPError.bodyTooLarge(limit: 1), status: 413, word: "too_large", reason: nil),
        Row(error: HTTPError.headersTooLarge(limit: 1), status: 431, word: "bad_request", reason: nil),
        Row(error: HTTPError.malformedRequest("why"), status: 400, word: "bad_request", reason: "why"),
        Row(error: HTTPError.malformedChunk("chunk"), status: 400, word: "bad_request", reason: "chunk"),
        Row(error: HTTPError.truncatedBody, status: 400, word: "bad_request", reason: nil),
        Row(error: HTTPError.timedOut, status: 408, word: "request_timeout", reason: nil),
        Row(error: HTTPError.unsupportedTransferCoding("gzip"), status: 501, word: "not_implemented", reason: nil),
        Row(error: HTTPError.versionNotSupported("HTTP/2"), status: 505, word: "bad_request", reason: nil),
        Row(error: HTTPError.connectionClosed, status: 400, word: "bad_request", reason: nil),
        Row(error: HTTPError.socket(call: "recv", errno: 104), status: 400, word: "bad_request", reason: nil),
    ]

    static let documentRows: [Row] = [
        Row(error: DocumentError.badSpecialMember("_x"), status: 400, word: "doc_validation",
            reason: "Bad special document member: _x"),
        Row(error: DocumentError.invalidMember("_revisions member is invalid"), status: 400, word: "doc_validation",
            reason: "_revisions member is invalid"),
        Row(error: DocumentError.invalidDocumentID("Document id must not be empty"), status: 400, word: "illegal_docid",
            reason: "Document id must not be empty"),
        Row(error: DocumentError.invalidRevision, status: 400, word: "bad_request", reason: "Invalid rev format"),
        Row(error: DocumentError.badRequest("Bad attachment a"), status: 400, word: "bad_request", reason: "Bad attachment a"),
        Row(error: DocumentError.tooLarge("doc"), status: 413, word: "document_too_large", reason: "doc"),
        Row(error: DocumentError.unsupportedAttachmentEncoding("br"), status: 415, word: "bad_content_type",
            reason: "Unsupported attachment encoding: br"),
        Row(error: DocumentError.notFound("deleted"), status: 404, word: "not_found", reason: "deleted"),
    ]

    static let replicationRows: [Row] = [
        Row(error: ReplicationError.databaseNotFound("http://h:5984/db"), status: 500, word: "db_not_found",
            reason: "could not open http://h:5984/db/"),
        Row(error: ReplicationError.databaseNotFound("local"), status: 500, word: "db_not_found",
            reason: "could not open local"),
        Row(error: ReplicationError.invalidEndpoint("x y"), status: 400, word: "bad_request", reason: "Invalid endpoint: x y"),
        Row(error: ReplicationError.invalidOption("no"), status: 400, word: "bad_request", reason: "no"),
        Row(error: ReplicationError.missingEndpoint("target"), status: 400, word: "bad_request", reason: "Missing target"),
        Row(error: ReplicationError.peerError(peer: "http://h/db", status: 401, error: "unauthorized", reason: ""),
            status: 401, word: "unauthorized", reason: "unauthorized to access or create database http://h/db/"),
        Row(error: ReplicationError.peerError(peer: "http://h/db", status: 403, error: "forbidden", reason: ""),
            status: 403, word: "unauthorized", reason: "unauthorized to access or create database http://h/db/"),
        Row(error: ReplicationError.peerError(peer: "p", status: 500, error: "e", reason: "r"), status: 500,
            word: "replication_failed", reason: "p answered 500 e: r"),
        Row(error: ReplicationError.revisionMissing("d", "1-a"), status: 500, word: "replication_failed",
            reason: "the source could not serve d 1-a"),
        Row(error: ReplicationError.malformedAnswer(peer: "p", what: "_changes"), status: 500, word: "replication_failed",
            reason: "p sent a malformed _changes"),
        Row(error: ReplicationError.unreachable(peer: "p", cause: "refused"), status: 500, word: "replication_failed",
            reason: "p is unreachable: refused"),
        Row(error: ReplicationError.certificateMismatch(peer: "p", expected: "AA", presented: "BB"), status: 500,
            word: "replication_failed", reason: "p presented a TLS certificate with SHA-256 fingerprint BB, not the pinned AA"),
        Row(error: ReplicationError.directoryInUse("/d"), status: 409, word: "conflict",
            reason: "the data directory /d is in use by another process (settee serve or a program embedding Settee): "
                + "stop it, or replicate through its URL"),
        Row(error: ReplicationError.fileEndpointRefused("file:///d/db"), status: 403, word: "forbidden",
            reason: "file:// endpoints are for the command line and server admins only: file:///d/db"),
        Row(error: ReplicationError.cancelled, status: 500, word: "replication_failed", reason: "cancelled"),
    ]

    static let otherRows: [Row] = [
        Row(error: CouchError.conflict, status: 409, word: "conflict", reason: "Document update conflict."),
        Row(error: JSONError(.unexpectedEnd, at: 0), status: 400, word: "bad_request", reason: "invalid UTF-8 JSON"),
        Row(error: CancellationError(), status: 500, word: "unknown_error", reason: nil),
        // A JavaScriptError no caller named: a query server's failure.
        Row(error: JavaScriptError(message: "OS process timed out."), status: 500, word: "os_process_error",
            reason: "OS process timed out."),
    ]

    /// Every kind of call through the JavaScript table: what CouchDB answers for a function
    /// that failed as it ran (a time limit included), whatever it was for.
    static let javaScriptRows: [(JavaScriptCall, Int, String, String)] = [
        (.map, 500, "os_process_error", "OS process timed out."),
        (.reduce, 500, "reduce_error", "OS process timed out."),
        (.render, 500, "os_process_error", "OS process timed out."),
        (.filter, 500, "error", "The filter function threw: OS process timed out."),
        (.validation, 500, "os_process_error", "OS process timed out."),
    ]

    @Test func everyJavaScriptCallHasARow() {
        #expect(Set(Self.javaScriptRows.map { "\($0.0)" }) == Set(JavaScriptCall.allCases.map { "\($0)" }))
    }

    @Test(arguments: JavaScriptCall.allCases)
    func mapsJavaScript(call: JavaScriptCall) throws {
        let row = try #require(Self.javaScriptRows.first { $0.0 == call })
        let mapped = CouchError(javaScript: JavaScriptError(message: "OS process timed out."), in: call)
        #expect(mapped.status == row.1)
        #expect(mapped.error == row.2)
        #expect(mapped.reason == row.3)
        #expect(mapped.isFromJavaScript)
        // No engine and an overloaded service answer the same for every call.
        #expect(CouchError(javaScript: JavaScriptEngine.unavailable, in: call).status == 501)
        let overloaded = CouchError(javaScript: JavaScriptError(message: "busy", isOverloaded: true), in: call)
        #expect((overloaded.status, overloaded.error) == (503, "service_unavailable"))
    }

    @Test func mapsJavaScriptCompilationAndThrownErrors() {
        let compiled = CouchError.javaScriptCompilation(JavaScriptError(message: "SyntaxError"), failure: "Compilation failed: ")
        #expect((compiled.status, compiled.error, compiled.reason) == (400, "compilation_error", "Compilation failed: SyntaxError"))
        #expect(CouchError.javaScriptCompilation(JavaScriptEngine.unavailable, failure: "").status == 501)
        for (type, status) in [("bad_request", 400), ("unauthorized", 401), ("forbidden", 403), ("not_found", 404),
                               ("method_not_allowed", 405), ("not_acceptable", 406), ("conflict", 409), ("oops", 500)] {
            let thrown = CouchError.thrownByFunction(type, "r")
            #expect((thrown.status, thrown.error, thrown.reason) == (status, type, "r"))
        }
    }

    @Test(arguments: storeRows + httpRows + documentRows + replicationRows + otherRows)
    func maps(row: Row) {
        let mapped = CouchError(mapping: row.error)
        #expect(mapped.status == row.status)
        #expect(mapped.error == row.word)
        if let reason = row.reason { #expect(mapped.reason == reason) }
    }
}
