import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeViews
internal import Synchronization

/// `validate_doc_update` (docs.couchdb.org "Design Documents" › "Validate Document
/// Update Functions"): every design document's function runs on every write to its
/// database — `PUT`, `_bulk_docs`, replicated (`new_edits=false`) — with the new
/// document, the stored one (or null), the writer's `userCtx` and the `_security`
/// object. `throw({forbidden: ...})` is 403, `throw({unauthorized: ...})` 401; an `Error`
/// 500 with its name as the error (`TypeError`), anything else thrown 500 `unknown_error`
/// with its text (as CouchDB 3.4.3 answers; its reason for an `Error` is `{[]}`, Settee's
/// the message). Design documents are
/// not passed through them, as in CouchDB; theirs are checked instead (`DesignDocumentCheck`).
///
/// The functions run on the node's `JavaScriptService`, before the write's transaction.
/// A database's list of functions is read once and kept until one of its design
/// documents is written (`designDocumentsChanged`), keyed by the `Database` object, so
/// a deleted and recreated database starts afresh.
///
/// CouchDB's own `_design/_auth` function (`AuthDesignDocument`) is not run in a users
/// database: `UsersDatabasePolicy` applies the same rules natively on every write there,
/// so `_users` needs no JavaScript engine. Anywhere else, or changed by a byte, it runs.
final class DocumentValidation: UpdateValidator {
    /// A database's functions. The weak reference is what is checked: an `ObjectIdentifier`
    /// alone could be reused by a database object made at a freed one's address.
    private final class Kept: Sendable {
        weak let database: Database?
        /// Each with whether it is CouchDB's built-in `_design/_auth` function.
        let functions: [(function: DesignFunction, isAuthBuiltIn: Bool)]

        init(_ database: Database, _ functions: [(function: DesignFunction, isAuthBuiltIn: Bool)]) {
            self.database = database
            self.functions = functions
        }
    }

    private let cache = Mutex<[ObjectIdentifier: Kept]>([:])
    let service: JavaScriptService
    /// Which databases are users databases, where the built-in function is not run.
    let authentication: AuthenticationDatabase

    init(service: JavaScriptService, authentication: AuthenticationDatabase = AuthenticationDatabase()) {
        self.service = service
        self.authentication = authentication
    }

    func validate(_ updates: [DocumentUpdate], newEdits: Bool, in database: Database) async -> [Int: WriteRejection] {
        var refusals = await DesignDocumentCheck.refusals(updates, database, service)
        // Asked at each write: the authentication database can change at run time.
        let isUsersDatabase = authentication.isUsersDatabase(database.name)
        guard let kept = try? await functions(of: database) else { return refusals }
        let functions = kept.filter { !($0.isAuthBuiltIn && isUsersDatabase) }.map(\.function)
        guard !functions.isEmpty else { return refusals }
        let security = (try? await database.security()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        // The declared writer: the node's own jobs (its replicator into a local database)
        // declare `.system`, an admin; a write that declares none is anonymous.
        let writer = WriteContext.current
        let userContext = JSONWriter.string([
            "db": .string(database.name), "name": writer.name.map { .string($0) } ?? .null,
            "roles": .array(writer.roles.map { .string($0) })])
        // Design documents pass their own checks instead (couch_db:validate_doc_update/3).
        for (index, update) in updates.enumerated() where !update.id.hasPrefix("_design/") {
            let old = try? await database.winner(id: update.id)
            let newDocument = Self.json(id: update.id, rev: update.history.first ?? update.baseRevision,
                                        body: update.body, deleted: update.isDeleted)
            let oldDocument = old.map { Self.json(id: update.id, rev: $0.rev, body: $0.body ?? Array("{}".utf8),
                                                  deleted: $0.isDeleted) } ?? "null"
            for function in functions {
                if let refusal = await verdict(function, newDocument, oldDocument, userContext, security) {
                    refusals[index] = refusal
                    break
                }
            }
        }
        return refusals
    }

    /// What one function says of one write: nil to let it pass.
    private func verdict(_ function: DesignFunction, _ newDocument: String, _ oldDocument: String,
                         _ userContext: String, _ security: String) async -> WriteRejection? {
        let verdict: JSONValue
        do {
            verdict = try await service.call(function) { (engine, handle) throws(JavaScriptError) in
                try engine.validate(handle, newDocument: newDocument, oldDocument: oldDocument,
                                    userContext: userContext, securityObject: security)
            }
        } catch let error as CouchError where error.error == "compilation_error" {
            return nil  // saving it was refused already; one replicated in refuses nothing here
        } catch {
            // 501 without an engine (refused rather than let through unchecked), 503 when
            // overloaded, 500 `os_process_error` for a function stopped or failing as it ran
            // (CouchDB 3.4.3 answers a validation past its time limit so, not 403 `forbidden`).
            let answer = (error as? JavaScriptError).map { CouchError(javaScript: $0, in: .validation) }
                ?? CouchError(mapping: error)
            return .refused(status: answer.status, error: answer.error, reason: answer.reason)
        }
        if let reason = verdict["forbidden"]?.stringValue { return .forbidden(reason) }
        if let reason = verdict["unauthorized"]?.stringValue { return .unauthorized(reason) }
        if let reason = verdict["error"]?.stringValue {
            return .refused(status: 500, error: verdict["name"]?.stringValue ?? "unknown_error", reason: reason)
        }
        return nil
    }

    func designDocumentsChanged(in database: Database) {
        _ = cache.withLock { $0.removeValue(forKey: ObjectIdentifier(database)) }
    }

    /// The database's functions, read from its design documents when not kept.
    private func functions(of database: Database) async throws -> [(function: DesignFunction, isAuthBuiltIn: Bool)] {
        if let kept = cache.withLock({ $0[ObjectIdentifier(database)] }), kept.database === database {
            return kept.functions
        }
        var functions: [(function: DesignFunction, isAuthBuiltIn: Bool)] = []
        for (id, body) in try await DesignDocuments.all(database) {
            // Another language's function is kept: running it answers 500 `unknown_query_language`
            // to every write, as CouchDB 3.4.3 does (Mango's "query" documents have none to run).
            guard body["language"]?.stringValue != "query",
                  let source = body["validate_doc_update"]?.stringValue else { continue }
            let design = try await DesignDocuments.revision(id, in: database)
            let function = DesignFunction(code: design.code(database), name: "validate_doc_update", source: source,
                                          scope: .plain, failure: "Compilation of validate_doc_update failed: ")
            functions.append((function, id == AuthDesignDocument.id && source == AuthDesignDocument.validateFunction))
        }
        cache.withLock { cache in
            cache = cache.filter { $0.value.database != nil }  // databases deleted since
            cache[ObjectIdentifier(database)] = Kept(database, functions)
        }
        return functions
    }

    private static func json(id: String, rev: RevisionID?, body: [UInt8], deleted: Bool) -> String {
        var writer = DocumentWriter(id: id, rev: rev?.description ?? "", body: body)
        writer.includesRevision = rev != nil
        writer.isDeleted = deleted
        return String(decoding: writer.serialize(), as: UTF8.self)
    }
}
