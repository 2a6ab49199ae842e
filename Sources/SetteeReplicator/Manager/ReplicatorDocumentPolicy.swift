public import SetteeStore
internal import SetteeJSON

/// `_replicator`'s write rule, as CouchDB's validation of that database answers:
/// a document whose replication fields are unreadable is refused with 403
/// `forbidden` before it is stored. Deletions and design documents pass, and
/// so do filter functions (they fail later, when the job runs: no JavaScript here).
public struct ReplicatorDocumentPolicy: WritePolicy {
    public init() {}

    public func review(_ update: DocumentUpdate, newEdits: Bool,
                       current: () throws -> StoredRevision?) throws(WriteRejection) {
        guard !update.isDeleted, !update.id.hasPrefix("_design/") else { return }
        guard var body = (try? JSONReader.parse(update.body))?.objectValue else { return }
        body.removeAll { $0.key == "filter" }
        do {
            _ = try ReplicationSpec(body)
        } catch ReplicationError.missingEndpoint {
            throw .forbidden("Missing replicator database")
        } catch ReplicationError.invalidOption(let reason) {
            // CouchDB's reason is the Erlang term its validation threw.
            throw .forbidden("{throw,{bad_request,<<\"\(reason)\">>}}")
        } catch {
            throw .forbidden("\(error)")
        }
    }
}
