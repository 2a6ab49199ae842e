/// Many documents' rows and trees read together: one statement for up to
/// `idsPerStatement` ids, the `docs` rows of the ids `LEFT JOIN` their revision rows, as
/// a page of `_changes` is read (`DocumentRecords.changes`). `_bulk_get` read each of its
/// documents with a statement of its own (bind, step, reset per document: 32 % of a
/// replication source's CPU) and `_revs_diff` each id's tree so (bench/RESULTS.md,
/// "Replication of 100,000 documents: where the CPU goes").
extension DocumentRecords {
    /// The most ids one statement asks for. A shorter list is padded with NULLs (which
    /// `IN` never matches) to the next of `statementSizes`, so that a handful of
    /// statements, not one per list length, sit in the connection's cache.
    static let statementSizes = [4, 16, 64, 256]
    static var idsPerStatement: Int { statementSizes[statementSizes.count - 1] }

    /// Columns as `treeSQL` / `treeAndWinnerSQL` (0–8 / 0–10), then the id; one
    /// statement for each of `statementSizes`.
    private static let manyTreesSQL = statementSizes.map { manySQL(treeColumns, size: $0) }
    private static let manyTreesAndWinnersSQL = statementSizes.map { manySQL(treeAndWinnerColumns, size: $0) }

    private static func manySQL(_ columns: String, size: Int) -> String {
        columns + ", d.docid FROM docs d LEFT JOIN revs r ON r.doc_id = d.doc_id WHERE d.docid IN ("
            + repeatElement("?", count: size).joined(separator: ", ") + ")"
    }

    /// `documentAndTree` for each of `ids`, by id; an id never written has no entry.
    static func documentsAndTrees(_ db: Connection, ids: [String]) throws -> [String: DocumentWithWinner] {
        try readMany(db, ids: ids, withWinner: false)
    }

    /// `documentTreeAndWinner` for each of `ids`, by id; an id never written has no entry.
    static func documentsTreesAndWinners(_ db: Connection, ids: [String]) throws -> [String: DocumentWithWinner] {
        try readMany(db, ids: ids, withWinner: true)
    }

    private static func readMany(_ db: Connection, ids: [String], withWinner: Bool) throws -> [String: DocumentWithWinner] {
        // One id (a continuous replication's change, a single `_revs_diff`): the
        // one-document statement, with no IN list to build and pad.
        if ids.count == 1, let id = ids.first {
            let read = withWinner ? try documentTreeAndWinner(db, id: id)
                : try documentAndTree(db, id: id).map { DocumentWithWinner(record: $0.record, tree: $0.tree, winner: nil) }
            return read.map { [id: $0] } ?? [:]
        }
        var found: [String: DocumentWithWinner] = [:]
        found.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(ids.count, start + idsPerStatement)]
            try readChunk(db, chunk, withWinner: withWinner, into: &found)
            start += chunk.count
        }
        return found
    }

    /// Reads the documents of `ids` (at most `idsPerStatement`) into `found`. A document's
    /// rows come together (the join's inner loop), and each is made into its document as
    /// the next begins, with no map of documents in between (its copies were 5 % of a
    /// replication source's CPU). Should one document's rows ever come apart (another plan),
    /// its id is met twice: the chunk is then read again and grouped by `docs` row.
    private static func readChunk(_ db: Connection, _ ids: ArraySlice<String>, withWinner: Bool,
                                  into found: inout [String: DocumentWithWinner]) throws {
        let (sql, values, idColumn) = chunkStatement(ids, withWinner: withWinner)
        var cameApart = false
        var current: (rowID: Int64, id: String)?
        var rows = DocumentRows()
        func finish() {
            guard let current, let document = rows.document(id: current.id) else { return }
            // An id already found: this chunk's rows came apart, or the id was asked for in an
            // earlier chunk too (then reading again is only slower).
            if found.updateValue(document, forKey: current.id) != nil { cameApart = true }
        }
        try db.query(sql, values) { row in
            let rowID = row.int64(0)
            if current?.rowID != rowID {
                finish()
                current = (rowID, row.text(idColumn) ?? "")
                rows = DocumentRows()
            }
            rows.add(row, withWinner: withWinner)
        }
        finish()
        if cameApart { try readChunkGrouped(db, ids, withWinner: withWinner, into: &found) }
    }

    /// The statement for `ids`, its arguments padded with NULLs, and the column of the id.
    private static func chunkStatement(_ ids: ArraySlice<String>,
                                       withWinner: Bool) -> (sql: String, values: [SQLiteValue], idColumn: Int32) {
        let sizeIndex = statementSizes.firstIndex { $0 >= ids.count } ?? statementSizes.count - 1
        var values = ids.map(SQLiteValue.text)
        values += repeatElement(SQLiteValue.null, count: statementSizes[sizeIndex] - ids.count)
        return ((withWinner ? manyTreesAndWinnersSQL : manyTreesSQL)[sizeIndex], values, withWinner ? 11 : 9)
    }

    /// `readChunk` for rows in any order: grouped by the `docs` row they belong to.
    static func readChunkGrouped(_ db: Connection, _ ids: ArraySlice<String>, withWinner: Bool,
                                 into found: inout [String: DocumentWithWinner]) throws {
        let (sql, values, idColumn) = chunkStatement(ids, withWinner: withWinner)
        var byRow: [Int64: (id: String, rows: DocumentRows)] = [:]
        try db.query(sql, values) { row in
            let rowID = row.int64(0)
            byRow[rowID, default: (row.text(idColumn) ?? "", DocumentRows())].rows.add(row, withWinner: withWinner)
        }
        for (id, rows) in byRow.values {
            if let document = rows.document(id: id) { found[id] = document }
        }
    }
}

/// The rows of one document's tree read as `treeSQL` or `treeAndWinnerSQL` give them,
/// gathered into its record, tree and winner.
struct DocumentRows {
    private var first: (rowID: Int64, sequence: Int64, isDeleted: Bool)?
    private var rows: [TreeRow] = []
    private var winnerRev: RevisionID?
    private var winner: DocumentWithWinner.Winner?

    /// Adds one result row: the `docs` row (0–2), a revision row (3–7, NULL for a
    /// document with none), whether it is the winner (8), and with `withWinner` the
    /// winner's body and whether it has attachments (9–10).
    mutating func add(_ row: Statement, withWinner: Bool) {
        if first == nil { first = (row.int64(0), row.int64(1), row.int64(2) != 0) }
        guard let tree = TreeRow(row, from: 3) else { return }
        rows.append(tree)
        guard row.int64(8) != 0 else { return }
        winnerRev = tree.rev
        if withWinner { winner = .init(rev: tree.rev, body: row.blob(9), hasAttachments: row.int64(10) != 0) }
    }

    /// The document the rows make; nil when no row was added (the id was never written).
    /// Its record's winner is the revision row the `docs` row names, so no revision id
    /// is parsed twice.
    func document(id: String) -> DocumentWithWinner? {
        guard let first else { return nil }
        let record = DocumentRecord(rowID: first.rowID, id: id, sequence: first.sequence, winner: winnerRev,
                                    isDeleted: first.isDeleted)
        return DocumentWithWinner(record: record, tree: TreeRow.tree(rows), winner: winner)
    }
}
