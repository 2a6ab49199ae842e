import SetteeJSON
import SetteeStore

/// The live design documents of a database, parsed: what Mango's indexes, views and
/// `validate_doc_update` are read from.
enum DesignDocuments {
    static func all(_ database: Database) async throws -> [(id: String, body: JSONValue)] {
        var query = AllDocsQuery()
        query.startKey = "_design/"
        query.endKey = "_design0"  // "0" follows "/": every id with the prefix
        query.inclusiveEnd = false
        query.includeBodies = true
        return try await database.allDocs(query).rows.compactMap { row in
            guard let bytes = row.body, let body = try? JSONReader.parse(bytes) else { return nil }
            return (row.id, body)
        }
    }

    /// Design document `id`, parsed: 404 `missing` when it does not exist or is deleted,
    /// as CouchDB answers for a view, an `_info` or a filter of a missing one.
    static func named(_ id: String, in database: Database) async throws -> JSONValue {
        try await revision(id, in: database).body
    }

    /// A design document as read: its id, revision, parsed body and the digest of its
    /// content that names its compiled code (`DesignCode`).
    struct Revision: Sendable {
        let id: String
        let rev: String
        let body: JSONValue
        let digest: String
        /// Its views, each parsed once (`ViewDefinitions`).
        let views = ParsedViews()

        func code(_ database: Database) -> DesignCode {
            DesignCode(database: database, id: id, rev: rev, body: body, digest: digest)
        }
    }

    /// Design document `id` with its revision (404 as `named`). Kept, parsed, while the
    /// database takes no write: a view's point queries read it on every request.
    static func revision(_ id: String, in database: Database) async throws -> Revision {
        let key = "design\u{0}" + id
        let sequence = database.changesNotifier.sequence
        if let kept = database.derived[key, as: Parsed.self], kept.sequence == sequence { return kept.revision }
        guard let stored = try await database.winner(id: id), !stored.isDeleted, let bytes = stored.body else {
            throw CouchError.notFound("missing")
        }
        let body = try JSONReader.parse(bytes)
        let found = Revision(id: id, rev: stored.rev.description, body: body, digest: DesignCode.digest(of: body))
        database.derived.keep(Parsed(sequence: sequence, revision: found), for: key)
        return found
    }

    /// Whether `revision(id, in:)` would answer from what is kept, with no read.
    static func isKept(_ id: String, in database: Database) -> Bool {
        database.derived["design\u{0}" + id, as: Parsed.self]?.sequence == database.changesNotifier.sequence
    }

    /// A design document as read, and the database's update sequence when it was read
    /// (read before the document): kept with the database (`Database.derived`).
    private struct Parsed: Sendable {
        let sequence: Int64
        let revision: Revision
    }
}
