/// A page of `_changes` in one statement: the page's `docs` rows and every revision
/// row of each, joined. Reading each document's tree with a statement of its own (one
/// bind, step and reset per document) was most of a replication source's CPU for
/// `_changes`: 0.14 of 0.17 s for 100 pages of 1,000 documents (bench/RESULTS.md,
/// "Replication of 100,000 documents: where the CPU goes").
extension DocumentRecords {
    /// Columns: the `docs` row (0–2), then a revision row (3–7, `TreeRow`; NULL for a
    /// document with none). Ordered by the document's seq, then by revision row, as
    /// `tree(_:rowID:)` reads them, so each document's rows come together.
    private static let changesSQL = """
        SELECT d.doc_id, d.docid, d.seq, r.sequence, r.revid, r.parent, r.deleted, r.json IS NOT NULL
        FROM (SELECT doc_id, docid, seq FROM docs WHERE seq > ? ORDER BY seq LIMIT ?) AS d
        LEFT JOIN revs r ON r.doc_id = d.doc_id
        ORDER BY d.seq, r.sequence
        """

    /// The changes after `since` in seq order, at most `limit` (-1: all), each with its
    /// leaves as `tree(_:rowID:)` gives them.
    static func changes(_ db: Connection, since: Int64, limit: Int64) throws -> [Change] {
        var changes: [Change] = []
        var document: (rowID: Int64, id: String, seq: Int64)?
        var rows: [TreeRow] = []
        func finishDocument() {
            guard let document else { return }
            changes.append(Change(sequence: document.seq, id: document.id, tree: TreeRow.tree(rows)))
            rows.removeAll(keepingCapacity: true)
        }
        try db.query(changesSQL, [.integer(since), .integer(limit)]) { row in
            let rowID = row.int64(0)
            if document?.rowID != rowID {
                finishDocument()
                document = (rowID, row.text(1) ?? "", row.int64(2))
            }
            if let revision = TreeRow(row, from: 3) { rows.append(revision) }
        }
        finishDocument()
        return changes
    }
}
