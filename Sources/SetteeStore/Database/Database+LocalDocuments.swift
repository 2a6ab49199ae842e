/// `_local/` documents: no history, no revision check, never replicated or in
/// `_changes`/`_all_docs` (spec/couchdb.md "Revisions"). The rev is `0-N`.
extension Database {
    /// The local document `_local/<id>` (`id` without the prefix), nil when missing.
    public func localDocument(id: String) async throws -> LocalDocument? {
        try await readers.read { db in
            var document: LocalDocument?
            try db.query("SELECT revid, json FROM localdocs WHERE docid = ?", [.text(id)]) { row in
                document = LocalDocument(id: id, rev: row.text(0) ?? "0-0", body: row.blob(1) ?? [])
            }
            return document
        }
    }

    /// Stores `_local/<id>` with no revision check: the new rev is `0-(N+1)` where
    /// `0-N` is the given `rev` (N = 0 when none), as CouchDB 3 does.
    /// Deleting (`isDeleted`) a missing local document throws `.documentNotFound(reason: "missing")`;
    /// a deletion answers rev `0-0`, as CouchDB does.
    public func putLocal(id: String, body: [UInt8], rev: String?, isDeleted: Bool) async throws -> String {
        let base = rev.flatMap(Self.localGeneration) ?? 0
        // Only `localdocs` changes, which no winner read looks at: the kept winners stay
        // (a replication's checkpoints would otherwise empty them every few seconds).
        return try await writer.write(changing: .ids([])) { db in
            if isDeleted {
                guard try db.integer("SELECT 1 FROM localdocs WHERE docid = ?", [.text(id)]) != nil else {
                    throw StoreError.documentNotFound(reason: "missing")
                }
                try db.run("DELETE FROM localdocs WHERE docid = ?", [.text(id)])
                return "0-0"
            }
            let newRev = "0-\(base + 1)"
            try db.run("INSERT OR REPLACE INTO localdocs(docid, revid, json) VALUES (?, ?, ?)",
                       [.text(id), .text(newRev), .blob(body)])
            return newRev
        }
    }

    /// `N` of a `0-N` local rev; nil when it has another shape (then treated as none).
    static func localGeneration(_ rev: String) -> Int? {
        guard rev.hasPrefix("0-") else { return nil }
        return Int(rev.dropFirst(2)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `_local_docs`: local documents by id range (same query shape as `_all_docs`).
    /// With `keys`, the existing ones among them, in key order.
    public func localDocuments(_ query: AllDocsQuery) async throws -> [LocalDocument] {
        if let keys = query.keys {
            var found: [LocalDocument] = []
            for key in keys { if let document = try await localDocument(id: key) { found.append(document) } }
            return Array(found.dropFirst(max(0, query.skip)).prefix(query.limit.map { max(0, $0) } ?? Int.max))
        }
        return try await readers.read(.scan) { db in
            let clause = AllDocsReader.rangeClause(column: "docid", query)
            let body = query.includeBodies ? "json" : "x''"
            var documents: [LocalDocument] = []
            try db.query("SELECT docid, revid, \(body) FROM localdocs WHERE 1\(clause.sql)", clause.arguments) { row in
                documents.append(LocalDocument(id: row.text(0) ?? "", rev: row.text(1) ?? "0-0",
                                               body: row.blob(2) ?? []))
            }
            return documents
        }
    }
}
