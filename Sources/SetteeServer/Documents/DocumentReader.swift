import SetteeJSON
import SetteeStore

/// Reads one revision of a document with CouchDB's not-found rules:
/// never written → "missing"; winner deleted and no rev asked for → "deleted";
/// an unknown or bodiless rev → "missing".
enum DocumentReader {
    struct Revision {
        let document: StoredDocument
        let revision: StoredRevision
        var body: [UInt8]? { revision.body }
    }

    static func read(_ database: Database, id: String, rev revText: String?) async throws -> Revision {
        let rev = try revText.map { try DocumentParser.revision(.string($0)) }
        guard let document = try await database.document(id: id, revisions: rev.map { .revision($0) } ?? .winner),
              let revision = document.revisions.first
        else { throw CouchError.notFound("missing") }
        if rev == nil && revision.isDeleted { throw CouchError.notFound("deleted") }
        guard revision.body != nil else { throw CouchError.notFound("missing") }
        return Revision(document: document, revision: revision)
    }
}
