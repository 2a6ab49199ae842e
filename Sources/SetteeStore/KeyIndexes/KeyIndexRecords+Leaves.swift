/// What a map function sees beside a document's body: CouchDB's index updater opens
/// each document with `[conflicts, deleted_conflicts]` (couch_index_updater:update/3)
/// and hands it to the query server with its attachments' stubs
/// (couch_query_servers:map_doc_raw/2, `couch_doc:to_json_obj(Doc, [])`).
extension KeyIndexRecords {
    /// Fills in the conflicts and attachments of the batch's live documents: two queries
    /// per few hundred documents, over the leaves (`revs_current`) and their attachments.
    static func addLeavesAndAttachments(_ db: Connection, to changes: inout [KeyIndexBatch.Change]) throws {
        var positions: [Int64: Int] = [:]
        for (position, change) in changes.enumerated() where change.document != nil { positions[change.rowID] = position }
        let rowIDs = Array(positions.keys)
        // A database without attachments (most) skips their join: a probe of `revs` and of
        // `attachments` per document, about a tenth of a view build's CPU (bench/RESULTS.md).
        let hasAttachments = try db.integer("SELECT EXISTS (SELECT 1 FROM attachments)") ?? 1 != 0
        for start in stride(from: 0, to: rowIDs.count, by: 500) {
            let chunk = Array(rowIDs[start..<min(rowIDs.count, start + 500)])
            let list = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            var leaves: [Int64: [RevisionTree.Node]] = [:]
            // Only documents with more than one leaf have conflicts to show (most have one):
            // their leaves alone are read and parsed, not a revision id per document. The
            // candidates are those with more than one revision, counted in the (doc_id, revid)
            // index alone; counting leaves read each document's row of `revs` for `current`.
            let sql = """
                SELECT doc_id, revid, deleted, sequence FROM revs WHERE current = 1 AND doc_id IN (
                    SELECT doc_id FROM revs WHERE doc_id IN (\(list)) GROUP BY doc_id HAVING count(*) > 1)
                """
            try db.query(sql, chunk.map { .integer($0) }) { row in
                guard let rev = row.revisionID(1) else { return }
                leaves[row.int64(0), default: []].append(RevisionTree.Node(
                    rev: rev, parent: nil, isDeleted: row.int64(2) != 0, sequence: row.int64(3), hasBody: true))
            }
            for (rowID, nodes) in leaves where nodes.count > 1 {
                guard let position = positions[rowID], let rev = changes[position].document?.rev else { continue }
                let others = nodes.filter { $0.rev != rev }.sorted(by: RevisionTree.ranksBefore)
                changes[position].document?.conflicts = others.filter { !$0.isDeleted }.map(\.rev)
                changes[position].document?.deletedConflicts = others.filter(\.isDeleted).map(\.rev)
            }
            if hasAttachments { try addAttachments(db, chunk, list, positions, to: &changes) }
        }
    }

    /// The attachments of each document's revision (a leaf's: a document read as it stood
    /// before a later write has none here, and its next refresh indexes the newer one).
    private static func addAttachments(_ db: Connection, _ chunk: [Int64], _ list: String, _ positions: [Int64: Int],
                                       to changes: inout [KeyIndexBatch.Change]) throws {
        let sql = """
            SELECT r.doc_id, r.revid, a.name, a.content_type, a.digest, a.revpos, a.length, a.encoded_length, a.encoding
            FROM revs r JOIN attachments a ON a.sequence = r.sequence
            WHERE r.current = 1 AND r.doc_id IN (\(list)) ORDER BY a.rowid
            """
        try db.query(sql, chunk.map { .integer($0) }) { row in
            guard let position = positions[row.int64(0)], let document = changes[position].document,
                  row.revisionID(1) == document.rev,
                  let digest = row.blob(4).flatMap(AttachmentDigest.init(md5:)) else { return }
            changes[position].document?.attachments.append(StoredAttachment(
                name: row.text(2) ?? "", contentType: row.text(3) ?? "", digest: digest,
                revpos: Int(row.int64(5)), length: row.int64(6), encodedLength: row.int64(7), encoding: row.text(8)))
        }
    }
}
