/// The documents in conflict — two or more leaves that are not deleted — kept in a
/// table as writes land (`conflicts`, one row per document), so listing them
/// (`Database.conflictedDocuments`) reads that table instead of every document's leaves.
///
/// A document's leaves only grow with writes (an edit replaces its leaf, a branch adds
/// one, a delete leaves a deleted leaf), so a document written with one leaf was never
/// in conflict and costs nothing here; only purge takes leaves away, and it says so.
enum ConflictRecords {
    /// Schema migration 8 → 9: the table, seeded from the leaves already stored.
    static let migration = """
        CREATE TABLE IF NOT EXISTS conflicts (doc_id INTEGER PRIMARY KEY);
        INSERT OR IGNORE INTO conflicts(doc_id)
            SELECT doc_id FROM revs WHERE current = 1 AND deleted = 0 GROUP BY doc_id HAVING count(*) > 1;
        """

    /// Records whether document row `rowID` is in conflict now that its tree is `tree`.
    /// - Parameter leavesMayHaveShrunk: the write took leaves away (purge).
    static func note(_ db: Connection, rowID: Int64, tree: RevisionTree, leavesMayHaveShrunk: Bool = false) throws {
        let leaves = tree.leaves
        guard leaves.count > 1 || leavesMayHaveShrunk else { return }
        if leaves.count(where: { !$0.isDeleted }) > 1 {
            try db.run("INSERT OR IGNORE INTO conflicts(doc_id) VALUES (?)", [.integer(rowID)])
        } else {
            try db.run("DELETE FROM conflicts WHERE doc_id = ?", [.integer(rowID)])
        }
    }

    /// Forgets a document row that is gone (purged whole).
    static func forget(_ db: Connection, rowID: Int64) throws {
        try db.run("DELETE FROM conflicts WHERE doc_id = ?", [.integer(rowID)])
    }

    /// Up to `limit` ids of documents in conflict, in id order, from `start` on.
    static func ids(_ db: Connection, from start: String?, limit: Int) throws -> [String] {
        var ids: [String] = []
        let sql = """
            SELECT d.docid FROM conflicts c JOIN docs d ON d.doc_id = c.doc_id
            WHERE d.docid >= ? ORDER BY d.docid LIMIT ?
            """
        try db.query(sql, [.text(start ?? ""), .integer(Int64(limit))]) { row in
            if let id = row.text(0) { ids.append(id) }
        }
        return ids
    }

    /// Those of `ids` in the table, in the order given; SQLite's host parameters are
    /// bounded (999 in older builds), so the ids go in chunks.
    static func conflicted(_ db: Connection, among ids: [String]) throws -> [String] {
        var found = Set<String>()
        var start = ids.startIndex
        while start < ids.endIndex {
            let chunk = ids[start..<min(start + 500, ids.endIndex)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql = "SELECT d.docid FROM conflicts c JOIN docs d ON d.doc_id = c.doc_id WHERE d.docid IN (\(marks))"
            try db.query(sql, chunk.map { .text($0) }) { row in
                if let id = row.text(0) { found.insert(id) }
            }
            start = chunk.endIndex
        }
        return ids.filter { found.contains($0) }
    }

    static func count(_ db: Connection) throws -> Int {
        Int(try db.integer("SELECT count(*) FROM conflicts") ?? 0)
    }
}
