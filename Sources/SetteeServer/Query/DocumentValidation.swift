import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeViews
internal import Synchronization

/// `validate_doc_update` (docs.couchdb.org "Design Documents" › "Validate Document
/// Update Functions"): every design document's function runs on every write to its
/// database — `PUT`, `_bulk_docs`, replicated (`new_edits=false`) — with the new
/// document, the stored one (or null), the writer's `userCtx` and the `_security`
/// object. `throw({forbidden: ...})` is 403, `throw({unauthorized: ...})` 401; any other
/// exception 500 `unknown_error` with its message (as CouchDB 3.4.3 answers). Design documents are
/// not passed through them, as in CouchDB.
///
/// A database's functions are compiled once and kept until one of its design
/// documents is written (`designDocumentsChanged`), keyed by the `Database` object, so
/// a deleted and recreated database starts afresh.
final class DocumentValidation: UpdateValidator {
    private struct Function {
        let designDocument: String
        /// Nil when no engine could be made: every write is refused (501) rather than
        /// let through unchecked.
        let engine: JavaScriptEngine?
        let handle: Int
    }

    /// A database's functions. The weak reference is what is checked: an `ObjectIdentifier`
    /// alone could be reused by a database object made at a freed one's address.
    private final class Kept: Sendable {
        weak let database: Database?
        let functions: [Function]

        init(_ database: Database, _ functions: [Function]) {
            self.database = database
            self.functions = functions
        }
    }

    private let cache = Mutex<[ObjectIdentifier: Kept]>([:])

    func validate(_ updates: [DocumentUpdate], newEdits: Bool, in database: Database) async -> [Int: WriteRejection] {
        guard let functions = try? await functions(of: database), !functions.isEmpty else { return [:] }
        let security = (try? await database.security()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let writer = WriteContext.writer
        // No writer: the server's own jobs (its replicator into a local database), trusted as an admin.
        let userContext = JSONWriter.string([
            "db": .string(database.name), "name": writer?.name.map { .string($0) } ?? .null,
            "roles": .array((writer?.roles ?? ["_admin"]).map { .string($0) })])
        var refusals: [Int: WriteRejection] = [:]
        // Design documents pass their own checks instead (couch_db:validate_doc_update/3).
        for (index, update) in updates.enumerated() where !update.id.hasPrefix("_design/") {
            let old = try? await database.winner(id: update.id)
            let newDocument = Self.json(id: update.id, rev: update.history.first ?? update.baseRevision,
                                        body: update.body, deleted: update.isDeleted)
            let oldDocument = old.map { Self.json(id: update.id, rev: $0.rev, body: $0.body ?? Array("{}".utf8),
                                                  deleted: $0.isDeleted) } ?? "null"
            for function in functions {
                guard let engine = function.engine else {
                    refusals[index] = .refused(status: 501, error: "not_implemented",
                                               reason: JavaScriptEngine.unavailable.message)
                    break
                }
                let verdict: JSONValue
                do {
                    verdict = try engine.validate(function.handle, newDocument: newDocument, oldDocument: oldDocument,
                                                           userContext: userContext, securityObject: security)
                } catch {
                    refusals[index] = .forbidden(error.message)
                    break
                }
                if let reason = verdict["forbidden"]?.stringValue { refusals[index] = .forbidden(reason); break }
                if let reason = verdict["unauthorized"]?.stringValue { refusals[index] = .unauthorized(reason); break }
                if let reason = verdict["error"]?.stringValue {
                    refusals[index] = .refused(status: 500, error: "unknown_error", reason: reason)
                    break
                }
            }
        }
        return refusals
    }

    func designDocumentsChanged(in database: Database) {
        _ = cache.withLock { $0.removeValue(forKey: ObjectIdentifier(database)) }
    }

    /// The database's compiled functions, read from its design documents when not kept.
    private func functions(of database: Database) async throws -> [Function] {
        if let kept = cache.withLock({ $0[ObjectIdentifier(database)] }), kept.database === database {
            return kept.functions
        }
        var functions: [Function] = []
        for (id, body) in try await DesignDocuments.all(database) {
            guard (body["language"]?.stringValue ?? "javascript") == "javascript",
                  let source = body["validate_doc_update"]?.stringValue else { continue }
            guard JavaScriptEngine.isAvailable else {
                functions.append(Function(designDocument: id, engine: nil, handle: 0))
                continue
            }
            // One that does not compile refuses nothing here: saving it was refused already.
            guard let engine = try? JavaScriptEngine(), let handle = try? engine.compile(source) else { continue }
            functions.append(Function(designDocument: id, engine: engine, handle: handle))
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
