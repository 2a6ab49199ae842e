/// The SQL behind `_all_docs` and `_local_docs` ranges.
///
/// CouchDB's range semantics: ascending, rows run from `startkey` up to
/// `endkey`; descending, `startkey` is the high end and rows run down to
/// `endkey`. `inclusive_end=false` excludes `endkey` itself either way.
enum AllDocsReader {
    /// The WHERE bounds and ORDER BY for a range over `column`.
    static func rangeClause(column: String, _ query: AllDocsQuery) -> (sql: String, arguments: [SQLiteValue]) {
        var conditions: [String] = []
        var arguments: [SQLiteValue] = []
        let (low, high) = query.descending ? (">", "<") : ("<", ">")
        if let start = query.startKey {
            conditions.append("\(column) \(high)= ?")
            arguments.append(.text(start))
        }
        if let end = query.endKey {
            conditions.append("\(column) \(low)\(query.inclusiveEnd ? "=" : "") ?")
            arguments.append(.text(end))
        }
        let whereSQL = conditions.isEmpty ? "" : " AND " + conditions.joined(separator: " AND ")
        let order = " ORDER BY \(column) \(query.descending ? "DESC" : "ASC") LIMIT ? OFFSET ?"
        arguments.append(.integer(query.limit.map { Int64(max(0, $0)) } ?? -1))
        arguments.append(.integer(Int64(max(0, query.skip))))
        return (whereSQL + order, arguments)
    }

    static func rows(_ db: Connection, range query: AllDocsQuery) throws -> [AllDocsRow] {
        let clause = rangeClause(column: "d.docid", query)
        var rows: [AllDocsRow] = []
        var rowIDs: [Int64] = []
        try db.query("SELECT d.docid, d.winner, \(bodyColumn(query)), d.doc_id \(winnerJoin) WHERE d.deleted = 0"
                     + clause.sql, clause.arguments) { row in
            rows.append(AllDocsRow(id: row.text(0) ?? "", rev: row.text(1).flatMap(RevisionID.init),
                                   isDeleted: false, body: row.blob(2)))
            rowIDs.append(row.int64(3))
        }
        try addUnlinkedBodies(db, to: &rows, rowIDs: rowIDs, query)
        try addConflicts(db, to: &rows, rowIDs: rowIDs, query)
        return rows
    }

    /// One row per key, in order (reversed when descending), after `skip` and
    /// `limit`, as fabric_view_all_docs takes them.
    static func rows(_ db: Connection, keys: [String], query: AllDocsQuery) throws -> [AllDocsRow] {
        let ordered = query.descending ? Array(keys.reversed()) : keys
        var selected = ordered.dropFirst(max(0, query.skip))
        if let limit = query.limit { selected = selected.prefix(max(0, limit)) }
        var rows: [AllDocsRow] = []
        var rowIDs: [Int64] = []
        let sql = "SELECT d.winner, d.deleted, \(bodyColumn(query)), d.doc_id \(winnerJoin) WHERE d.docid = ?"
        for key in selected {
            var row = AllDocsRow(id: key, rev: nil, isDeleted: false, body: nil)
            var rowID: Int64 = 0
            try db.query(sql, [.text(key)]) { result in
                let isDeleted = result.int64(1) != 0
                row = AllDocsRow(id: key, rev: result.text(0).flatMap(RevisionID.init), isDeleted: isDeleted,
                                 body: isDeleted ? nil : result.blob(2))
                rowID = result.int64(3)
            }
            rows.append(row)
            rowIDs.append(rowID)
        }
        try addUnlinkedBodies(db, to: &rows, rowIDs: rowIDs, query)
        try addConflicts(db, to: &rows, rowIDs: rowIDs, query)
        return rows
    }

    /// `docs` joined to its winner's `revs` row, by `winner_seq` checked against `winner`.
    private static let winnerJoin = "FROM docs d LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner"

    private static func bodyColumn(_ query: AllDocsQuery) -> String { query.includeBodies ? "settee_body(r.json, r.crc)" : "NULL" }

    /// A live row asked for with its body has none only when its `docs` row's
    /// `winner_seq` is unlinked (`DocumentRecords.WinnerRead.unlinked`): read it by the tree.
    private static func addUnlinkedBodies(_ db: Connection, to rows: inout [AllDocsRow], rowIDs: [Int64],
                                          _ query: AllDocsQuery) throws {
        guard query.includeBodies else { return }
        for index in rows.indices where rows[index].rev != nil && !rows[index].isDeleted && rows[index].body == nil {
            rows[index].body = try DocumentRecords.winnerBodyFromTree(db, rowID: rowIDs[index])
        }
    }

    /// Fills `conflicts` of the rows that carry a body, when the query asks for them.
    private static func addConflicts(_ db: Connection, to rows: inout [AllDocsRow], rowIDs: [Int64],
                                     _ query: AllDocsQuery) throws {
        guard query.includeBodies && query.includeConflicts else { return }
        for index in rows.indices where rows[index].body != nil {
            rows[index].conflicts = try DocumentRecords.tree(db, rowID: rowIDs[index]).conflicts
        }
    }
}
