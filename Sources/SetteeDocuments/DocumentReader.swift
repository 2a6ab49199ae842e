internal import SetteeJSON
public import SetteeStore

/// Reads one revision of a document with CouchDB's not-found rules:
/// never written → "missing"; winner deleted and no rev asked for → "deleted";
/// an unknown or bodiless rev → "missing".
public enum DocumentReader {
    public struct Revision {
        public let id: String
        /// The document's revision tree; nil when read without it (`needsTree: false`).
        public let tree: RevisionTree?
        public let revision: StoredRevision
        public var body: [UInt8]? { revision.body }
    }

    /// - Parameter needsTree: whether the caller uses the tree. Without a `rev` and
    ///   without the tree, only the winner's rows are read (`Database.winner(id:)`).
    public static func read(_ database: Database, id: String, rev revText: String?,
                     needsTree: Bool = false) async throws -> Revision {
        let rev = try revText.map { try DocumentParser.revision(.string($0)) }
        let found: (tree: RevisionTree?, revision: StoredRevision)?
        if let rev {
            let document = try await database.document(id: id, revisions: .revision(rev))
            found = document.flatMap { document in document.revisions.first.map { (document.tree, $0) } }
        } else {
            found = try await winner(database, id: id, needsTree: needsTree)
        }
        guard let (tree, revision) = found else { throw DocumentError.notFound("missing") }
        if rev == nil && revision.isDeleted { throw DocumentError.notFound("deleted") }
        guard revision.body != nil else { throw DocumentError.notFound("missing") }
        return Revision(id: id, tree: tree, revision: revision)
    }

    /// A document's winner (even deleted), with its tree only when `needsTree`;
    /// nil when the id was never written. Without the tree only the winner's rows are read.
    public static func winner(_ database: Database, id: String,
                       needsTree: Bool) async throws -> (tree: RevisionTree?, revision: StoredRevision)? {
        guard needsTree else { return try await database.winner(id: id).map { (nil, $0) } }
        guard let document = try await database.document(id: id, revisions: .winner),
              let revision = document.revisions.first else { return nil }
        return (document.tree, revision)
    }
}
