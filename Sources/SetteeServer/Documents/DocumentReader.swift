import SetteeJSON
import SetteeStore

/// Reads one revision of a document with CouchDB's not-found rules:
/// never written → "missing"; winner deleted and no rev asked for → "deleted";
/// an unknown or bodiless rev → "missing".
enum DocumentReader {
    struct Revision {
        let id: String
        /// The document's revision tree; nil when read without it (`needsTree: false`).
        let tree: RevisionTree?
        let revision: StoredRevision
        var body: [UInt8]? { revision.body }
    }

    /// - Parameter needsTree: whether the caller uses the tree. Without a `rev` and
    ///   without the tree, only the winner's rows are read (`Database.winner(id:)`).
    static func read(_ database: Database, id: String, rev revText: String?,
                     needsTree: Bool = false) async throws -> Revision {
        let rev = try revText.map { try DocumentParser.revision(.string($0)) }
        let tree: RevisionTree?
        let found: StoredRevision?
        if rev == nil && !needsTree {
            (tree, found) = (nil, try await database.winner(id: id))
        } else {
            let document = try await database.document(id: id, revisions: rev.map { .revision($0) } ?? .winner)
            (tree, found) = (document?.tree, document?.revisions.first)
        }
        guard let revision = found else { throw CouchError.notFound("missing") }
        if rev == nil && revision.isDeleted { throw CouchError.notFound("deleted") }
        guard revision.body != nil else { throw CouchError.notFound("missing") }
        return Revision(id: id, tree: tree, revision: revision)
    }
}
