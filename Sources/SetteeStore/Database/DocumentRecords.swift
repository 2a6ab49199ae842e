/// Row-level reads and writes of `docs` and `revs`, shared by the writer and
/// the readers. Every function runs on the connection's own queue.
struct DocumentRecord {
    let rowID: Int64
    let id: String
    let sequence: Int64
    let winner: RevisionID?
    let isDeleted: Bool
}

/// A document's row and tree, and its winning revision's row as a plain `GET` needs it.
struct DocumentWithWinner {
    struct Winner {
        let rev: RevisionID
        let body: [UInt8]?
        let hasAttachments: Bool
    }

    let record: DocumentRecord
    let tree: RevisionTree
    /// Nil unless read by `documentTreeAndWinner` (or when no revision row is the winner).
    let winner: Winner?
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

    /// A document's row and its revision tree, read by one statement; nil when
    /// the id was never written. Every single-document read and write starts here.
    static func documentAndTree(_ db: Connection, id: String) throws -> (record: DocumentRecord, tree: RevisionTree)? {
        try read(db, id: id, withWinner: false).map { ($0.record, $0.tree) }
    }

    /// `documentAndTree`, plus the winner's body and whether it has attachment rows,
    /// from the same statement: a plain `GET` then needs no second statement for the
    /// body and none at all for attachments when there are none.
    static func documentTreeAndWinner(_ db: Connection, id: String) throws -> DocumentWithWinner? {
        try read(db, id: id, withWinner: true)
    }

    /// Columns: the `docs` row (0–2), the revision row (3–7, `TreeRow`), whether it is
    /// the winner the `docs` row names (8); `treeAndWinnerSQL` adds the winner's body
    /// and whether it has attachments (9–10).
    static let treeColumns = """
        SELECT d.doc_id, d.seq, d.deleted, r.sequence, r.revid, r.parent, r.deleted, r.json IS NOT NULL,
               r.revid = d.winner
        """
    static let treeAndWinnerColumns = treeColumns + """
        , CASE WHEN r.revid = d.winner THEN settee_body(r.json, r.crc) END,
               CASE WHEN r.revid = d.winner
                    THEN EXISTS (SELECT 1 FROM attachments a WHERE a.sequence = r.sequence) END
        """
    private static let oneDocument = " FROM docs d LEFT JOIN revs r ON r.doc_id = d.doc_id WHERE d.docid = ?"
    private static let treeSQL = treeColumns + oneDocument
    private static let treeAndWinnerSQL = treeAndWinnerColumns + oneDocument

    /// What `winner` found.
    enum WinnerRead {
        case neverWritten
        case found(StoredRevision)
        /// The `docs` row's `winner_seq` does not name its winner's row: the file was
        /// written by code that does not keep it (a Settee older than schema 5, after
        /// a downgrade). The tree read still finds the winner.
        case unlinked
    }

    /// A document's winning revision alone, without its tree: two lookups by key
    /// (the `docs` row by id, its winner's `revs` row by `winner_seq`, checked to be
    /// the revision `docs.winner` names) where the tree reads every revision row
    /// through the (doc_id, revid) index.
    static func winner(_ db: Connection, id: String) throws -> WinnerRead {
        var row: (sequence: Int64, rev: RevisionID, isDeleted: Bool, body: [UInt8]?, hasAttachments: Bool)?
        var exists = false
        try db.query("""
            SELECT r.sequence, r.revid, r.deleted, settee_body(r.json, r.crc),
                   EXISTS (SELECT 1 FROM attachments a WHERE a.sequence = r.sequence)
            FROM docs d LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner WHERE d.docid = ?
            """, [.text(id)]) { result in
            exists = true
            guard !result.isNull(0), let rev = result.revisionID(1) else { return }
            row = (result.int64(0), rev, result.int64(2) != 0, result.blob(3), result.int64(4) != 0)
        }
        guard exists else { return .neverWritten }
        guard let row else { return .unlinked }
        let attachments = row.hasAttachments ? try AttachmentRecords.attachments(db, sequence: row.sequence) : []
        return .found(StoredRevision(rev: row.rev, isDeleted: row.isDeleted, sequence: row.sequence, body: row.body,
                                     attachments: attachments))
    }

    /// The winner's body by way of the tree, for a `docs` row whose `winner_seq` is unlinked.
    static func winnerBodyFromTree(_ db: Connection, rowID: Int64) throws -> [UInt8]? {
        guard let winner = try tree(db, rowID: rowID).winner, winner.hasBody else { return nil }
        return try body(db, sequence: winner.sequence)
    }

    /// Runs `treeSQL` or `treeAndWinnerSQL`: this runs for every document read.
    private static func read(_ db: Connection, id: String, withWinner: Bool) throws -> DocumentWithWinner? {
        var rows = DocumentRows()
        try db.query(withWinner ? treeAndWinnerSQL : treeSQL, [.text(id)]) { row in rows.add(row, withWinner: withWinner) }
        return rows.document(id: id)
    }

    /// The revision tree of document row `rowID`, and each revision's row sequence.
    static func tree(_ db: Connection, rowID: Int64) throws -> RevisionTree {
        var rows: [TreeRow] = []
        let sql = "SELECT sequence, revid, parent, deleted, json IS NOT NULL FROM revs WHERE doc_id = ?"
        try db.query(sql, [.integer(rowID)]) { row in
            if let tree = TreeRow(row, from: 0) { rows.append(tree) }
        }
        return TreeRow.tree(rows)
    }

    /// The JSON body stored in revision row `sequence`.
    static func body(_ db: Connection, sequence: Int64) throws -> [UInt8]? {
        var body: [UInt8]?
        try db.query("SELECT settee_body(json, crc) FROM revs WHERE sequence = ?", [.integer(sequence)]) { row in
            body = row.blob(0)
        }
        return body
    }

    /// Loads `revs` of a document as `StoredRevision`s; revisions not in `tree` are left out.
    /// What `known` already holds of a revision is not read again.
    static func revisions(_ db: Connection, rowID: Int64, tree: RevisionTree, revs: [RevisionID],
                          known: DocumentWithWinner.Winner? = nil) throws -> [StoredRevision] {
        try revs.compactMap { rev in
            guard let node = tree.node(rev) else { return nil }
            let known = known?.rev == rev ? known : nil
            let body = node.hasBody ? try known?.body ?? body(db, sequence: node.sequence) : nil
            let hasAttachments = node.hasBody && known?.hasAttachments != false
            let attachments = hasAttachments ? try AttachmentRecords.attachments(db, sequence: node.sequence) : []
            return StoredRevision(rev: rev, isDeleted: node.isDeleted, sequence: node.sequence, body: body,
                                  attachments: attachments)
        }
    }

    static func insertDocument(_ db: Connection, id: String) throws -> Int64 {
        try db.run("INSERT INTO docs(docid) VALUES (?)", [.text(id)])
        return db.lastInsertRowID
    }

    /// Inserts the `docs` row of a document never written before, already holding
    /// its seq and winner; returns its row id, or nil (nothing written) when `id` has a row.
    static func insertNewDocument(_ db: Connection, id: String, sequence: Int64, winner: RevisionID,
                                  isDeleted: Bool) throws -> Int64? {
        // Its one revision row is the winner, written as `sequence`, the document's seq.
        try db.run("""
            INSERT INTO docs(docid, seq, winner, winner_seq, deleted) VALUES (?1, ?2, ?3, ?2, ?4)
            ON CONFLICT(docid) DO NOTHING
            """, [.text(id), .integer(sequence), .text(winner.description), .integer(isDeleted ? 1 : 0)])
        return db.changes == 0 ? nil : db.lastInsertRowID
    }

    /// A `docs` row of a document never written before, in its final state.
    struct NewDocumentRow {
        let rowID: Int64
        let id: String
        let sequence: Int64
        let winner: RevisionID
        let isDeleted: Bool
    }

    /// A `revs` row as written: `parent` is the parent row's sequence, `body` nil for
    /// an ancestor whose body was never sent.
    struct RevisionRow {
        let sequence: Int64
        let rowID: Int64
        let rev: RevisionID
        let parent: Int64?
        let isLeaf: Bool
        let isDeleted: Bool
        let body: [UInt8]?
    }

    /// Inserts the `docs` rows of new documents with one statement, each already
    /// holding its row id, seq and winner. False when some id has a row (or is
    /// given twice): then fewer rows went in, and the caller must delete them.
    /// A new document's winner is its newest revision row, written last, as its seq.
    static func insertNewDocuments(_ db: Connection, _ rows: [NewDocumentRow]) throws -> Bool {
        var values: [SQLiteValue] = []
        values.reserveCapacity(rows.count * 6)
        for row in rows {
            // One append each: an array literal per row was an allocation per row.
            values.append(.integer(row.rowID))
            values.append(.text(row.id))
            values.append(.integer(row.sequence))
            values.append(.text(row.winner.description))
            values.append(.integer(row.sequence))
            values.append(.integer(row.isDeleted ? 1 : 0))
        }
        try db.run(newDocumentsInsert.sql(rows: rows.count), values)
        return db.changes == rows.count
    }

    private static let newDocumentsInsert = MultiRowInsert(
        "INSERT INTO docs(doc_id, docid, seq, winner, winner_seq, deleted) VALUES ", row: "(?, ?, ?, ?, ?, ?)",
        suffix: " ON CONFLICT(docid) DO NOTHING", maxRows: Inserter.runLength)

    /// Deletes the `docs` rows in `rowIDs` (rows of documents that have no revisions yet).
    static func deleteDocuments(_ db: Connection, rowIDs: ClosedRange<Int64>) throws {
        try db.run("DELETE FROM docs WHERE doc_id BETWEEN ? AND ?", [.integer(rowIDs.lowerBound), .integer(rowIDs.upperBound)])
    }

    /// Revision rows per multi-row INSERT (7 parameters a row, far below SQLite's limit;
    /// the same sizes as a run of new documents, so the statements are shared).
    static let revisionsPerInsert = Inserter.runLength

    /// Inserts `rows`, `revisionsPerInsert` to a statement.
    static func insertRevisions(_ db: Connection, _ rows: [RevisionRow]) throws {
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + revisionsPerInsert)]
            var values: [SQLiteValue] = []
            values.reserveCapacity(chunk.count * 8)
            for row in chunk {
                values.append(.integer(row.sequence))
                values.append(.integer(row.rowID))
                values.append(.text(row.rev.description))
                values.append(row.parent.map(SQLiteValue.integer) ?? .null)
                values.append(.integer(row.isLeaf ? 1 : 0))
                values.append(.integer(row.isDeleted ? 1 : 0))
                values.append(row.body.map(SQLiteValue.blob) ?? .null)
                values.append(BodyChecksum.of(row.body).map(SQLiteValue.integer) ?? .null)
            }
            try db.run(revisionsInsert.sql(rows: chunk.count), values)
            start += chunk.count
        }
    }

    private static let revisionsInsert = MultiRowInsert(
        "INSERT INTO revs(sequence, doc_id, revid, parent, current, deleted, json, crc) VALUES ",
        row: "(?, ?, ?, ?, ?, ?, ?, ?)", maxRows: revisionsPerInsert)

    /// The largest `docs` row id, 0 for none.
    static func lastRowID(_ db: Connection) throws -> Int64 {
        try db.integer("SELECT max(doc_id) FROM docs") ?? 0
    }

    /// Inserts one revision row as `sequence` (see `Inserter.Job` for why the writer picks it).
    static func insertRevision(_ db: Connection, sequence: Int64, rowID: Int64, rev: RevisionID, parent: Int64?,
                               isLeaf: Bool, isDeleted: Bool, body: [UInt8]?) throws {
        try db.run("""
            INSERT INTO revs(sequence, doc_id, revid, parent, current, deleted, json, crc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(sequence), .integer(rowID), .text(rev.description), parent.map(SQLiteValue.integer) ?? .null,
                  .integer(isLeaf ? 1 : 0), .integer(isDeleted ? 1 : 0), body.map(SQLiteValue.blob) ?? .null,
                  BodyChecksum.of(body).map(SQLiteValue.integer) ?? .null])
    }

    static func revsLimit(_ db: Connection) throws -> Int {
        Int(try db.integer("SELECT value FROM info WHERE key = 'revs_limit'") ?? 1000)
    }

    static func updateSequence(_ db: Connection) throws -> Int64 {
        try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'revs'") ?? 0
    }
}

/// One `revs` row as the tree needs it: sequence, revid, parent, deleted, has a body.
struct TreeRow {
    let sequence: Int64
    let rev: RevisionID
    let parent: Int64?
    let isDeleted: Bool
    let hasBody: Bool

    /// Reads the five columns starting at `column`; nil for a NULL row (no revisions
    /// joined) or an unparsable revid, which only corruption can produce.
    init?(_ row: Statement, from column: Int32) {
        guard !row.isNull(column), let rev = row.revisionID(column + 1) else { return nil }
        sequence = row.int64(column)
        self.rev = rev
        parent = row.isNull(column + 2) ? nil : row.int64(column + 2)
        isDeleted = row.int64(column + 3) != 0
        hasBody = row.int64(column + 4) != 0
    }

    /// Parent links are row sequences in the table and revision ids in the tree.
    static func tree(_ rows: [TreeRow]) -> RevisionTree {
        // Most documents have one revision stored, a root: no map of parents needed.
        if rows.count == 1, let row = rows.first, row.parent == nil {
            return RevisionTree(nodes: [RevisionTree.Node(rev: row.rev, parent: nil, isDeleted: row.isDeleted,
                                                          sequence: row.sequence, hasBody: row.hasBody)])
        }
        let revBySequence = Dictionary(rows.map { ($0.sequence, $0.rev) }, uniquingKeysWith: { a, _ in a })
        return RevisionTree(nodes: rows.map { row in
            RevisionTree.Node(rev: row.rev, parent: row.parent.flatMap { revBySequence[$0] },
                              isDeleted: row.isDeleted, sequence: row.sequence, hasBody: row.hasBody)
        })
    }
}
