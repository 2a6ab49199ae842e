/// Row-level reads and writes of `docs` and `revs`, shared by the writer and
/// the readers. Every function runs on the connection's own queue.
struct DocumentRecord {
    let rowID: Int64
    let id: String
    let sequence: Int64
    let winner: RevisionID?
    let isDeleted: Bool
}

enum DocumentRecords {
    static func document(_ db: Connection, id: String) throws -> DocumentRecord? {
        var record: DocumentRecord?
        try db.query("SELECT doc_id, seq, winner, deleted FROM docs WHERE docid = ?", [.text(id)]) { row in
            record = DocumentRecord(rowID: row.int64(0), id: id, sequence: row.int64(1),
                                    winner: row.text(2).flatMap(RevisionID.init), isDeleted: row.int64(3) != 0)
        }
        return record
    }

    /// The revision tree of document row `rowID`, and each revision's row sequence.
    static func tree(_ db: Connection, rowID: Int64) throws -> RevisionTree {
        var rows: [(sequence: Int64, rev: RevisionID, parent: Int64?, isDeleted: Bool, hasBody: Bool)] = []
        let sql = "SELECT sequence, revid, parent, deleted, json IS NOT NULL FROM revs WHERE doc_id = ?"
        try db.query(sql, [.integer(rowID)]) { row in
            // Rows are written only by this store, so an unparsable revid means corruption: skip it.
            guard let rev = row.text(1).flatMap(RevisionID.init) else { return }
            rows.append((row.int64(0), rev, row.isNull(2) ? nil : row.int64(2), row.int64(3) != 0, row.int64(4) != 0))
        }
        let revBySequence = Dictionary(rows.map { ($0.sequence, $0.rev) }, uniquingKeysWith: { a, _ in a })
        return RevisionTree(nodes: rows.map { row in
            RevisionTree.Node(rev: row.rev, parent: row.parent.flatMap { revBySequence[$0] },
                              isDeleted: row.isDeleted, sequence: row.sequence, hasBody: row.hasBody)
        })
    }

    static func body(_ db: Connection, rowID: Int64, rev: RevisionID) throws -> [UInt8]? {
        var body: [UInt8]?
        try db.query("SELECT json FROM revs WHERE doc_id = ? AND revid = ?",
                      [.integer(rowID), .text(rev.description)]) { row in body = row.blob(0) }
        return body
    }

    /// Loads `revs` of a document as `StoredRevision`s; revisions not in `tree` are left out.
    static func revisions(_ db: Connection, rowID: Int64, tree: RevisionTree,
                          revs: [RevisionID]) throws -> [StoredRevision] {
        try revs.compactMap { rev in
            guard let node = tree.node(rev) else { return nil }
            let body = node.hasBody ? try body(db, rowID: rowID, rev: rev) : nil
            let attachments = node.hasBody ? try AttachmentRecords.attachments(db, sequence: node.sequence) : []
            return StoredRevision(rev: rev, isDeleted: node.isDeleted, sequence: node.sequence, body: body,
                                  attachments: attachments)
        }
    }

    static func insertDocument(_ db: Connection, id: String) throws -> Int64 {
        try db.run("INSERT INTO docs(docid) VALUES (?)", [.text(id)])
        return db.lastInsertRowID
    }

    /// Inserts one revision row and returns its sequence.
    static func insertRevision(_ db: Connection, rowID: Int64, rev: RevisionID, parent: Int64?,
                               isLeaf: Bool, isDeleted: Bool, body: [UInt8]?) throws -> Int64 {
        try db.run("""
            INSERT INTO revs(doc_id, revid, parent, current, deleted, json) VALUES (?, ?, ?, ?, ?, ?)
            """, [.integer(rowID), .text(rev.description), parent.map(SQLiteValue.integer) ?? .null,
                  .integer(isLeaf ? 1 : 0), .integer(isDeleted ? 1 : 0), body.map(SQLiteValue.blob) ?? .null])
        return db.lastInsertRowID
    }

    static func revsLimit(_ db: Connection) throws -> Int {
        Int(try db.integer("SELECT value FROM info WHERE key = 'revs_limit'") ?? 1000)
    }

    static func updateSequence(_ db: Connection) throws -> Int64 {
        try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'revs'") ?? 0
    }
}
