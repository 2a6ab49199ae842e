public import SetteeStore
internal import SetteeJSON

/// `_replicator`'s write rule, as CouchDB's validation of that database answers:
/// a document whose replication fields are unreadable is refused with 403
/// `forbidden` before it is stored. Deletions and design documents pass, and
/// so do filter functions (a missing one fails later, when the job runs).
public struct ReplicatorDocumentPolicy: WritePolicy {
    public init() {}

    /// CouchDB's `before_doc_update` for `_replicator`: a document records its `owner`,
    /// the writer's name (set when absent); another user's document may be changed by
    /// database admins only. The manager's own writes (`WriterIdentity.system`) pass unchanged.
    public func prepare(_ update: DocumentUpdate, newEdits: Bool) throws(WriteRejection) -> DocumentUpdate {
        guard newEdits, !update.isDeleted, !update.id.hasPrefix("_design/"), case let writer = WriteContext.current,
              writer != .system, var body = (try? JSONReader.parse(update.body))?.objectValue else { return update }
        let name: JSONValue = writer.name.map { .string($0) } ?? .null
        switch body["owner"] {
        case nil:
            body.append("owner", name)
        case let owner? where owner == name:
            return update
        case .null? where writer.isDatabaseAdmin:
            body["owner"] = name
        case _? where writer.isDatabaseAdmin:
            return update
        default:
            throw .forbidden("Can't update replication documents from other users.")
        }
        var prepared = update
        prepared.body = JSONWriter.serialize(.object(body))
        return prepared
    }

    public func review(_ update: DocumentUpdate, newEdits: Bool,
                       current: () throws -> StoredRevision?) throws(WriteRejection) {
        guard !update.isDeleted, !update.id.hasPrefix("_design/") else { return }
        guard var body = (try? JSONReader.parse(update.body))?.objectValue else { return }
        body.removeAll { $0.key == "filter" }
        do {
            let spec = try ReplicationSpec(body)
            // A database of this server named directly would be read and written with no
            // access check at all: server admins only (CouchDB 3 takes URLs only).
            if !WriteContext.current.roles.contains("_admin"),
               [spec.source, spec.target].contains(where: { !Self.isURL($0) }) {
                throw WriteRejection.forbidden("Local database names are for server admins: use the database's URL.")
            }
        } catch let rejection as WriteRejection {
            throw rejection
        } catch ReplicationError.missingEndpoint {
            throw .forbidden("Missing replicator database")
        } catch ReplicationError.invalidOption(let reason) {
            // CouchDB's reason is the Erlang term its validation threw.
            throw .forbidden("{throw,{bad_request,<<\"\(reason)\">>}}")
        } catch {
            throw .forbidden("\(error)")
        }
    }

    static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}
