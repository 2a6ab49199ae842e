import SetteeJSON

/// The SQL of key indexes. Each index is a table `key_index_<signature>`:
/// `(key BLOB PRIMARY KEY, doc_id, value) WITHOUT ROWID`, one row per entry, the key
/// b-tree being what scans walk, with an index on `doc_id` to find a document's
/// entries when it changes. `key_indexes` records, per
/// signature, the update sequence its table has caught up to.
enum KeyIndexRecords {
    static func create(_ db: Connection, _ index: KeyIndex) throws {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS \(index.table) (key BLOB NOT NULL PRIMARY KEY, doc_id INTEGER NOT NULL,
                                                      value BLOB NOT NULL) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS \(index.table)_by_doc ON \(index.table)(doc_id);
            """)
        try db.run("INSERT OR IGNORE INTO key_indexes(signature, seq) VALUES (?, 0)", [.text(index.signature)])
    }

    /// The plan of a refresh of `indexes` (see `KeyIndexPlan`), from one snapshot: the
    /// update sequence, each table's seq, and the documents changed since the lowest.
    static func plan(_ db: Connection, _ indexes: [KeyIndex]) throws -> KeyIndexPlan {
        let target = try DocumentRecords.updateSequence(db)
        var sinces: [Int64] = []
        for index in indexes {
            sinces.append(try db.integer("SELECT seq FROM key_indexes WHERE signature = ?",
                                         [.text(index.signature)]) ?? 0)
        }
        let since = sinces.min() ?? target
        var documents: [KeyIndexPlan.Pending] = []
        if since < target {
            try db.query("SELECT doc_id, seq FROM docs WHERE seq > ? AND seq <= ? ORDER BY seq",
                         [.integer(since), .integer(target)]) { row in
                documents.append(KeyIndexPlan.Pending(rowID: row.int64(0), seq: row.int64(1)))
            }
        }
        let empty = Set(zip(indexes, sinces).filter { $0.1 == 0 }.map(\.0.signature))
        return KeyIndexPlan(target: target, sinces: sinces, empty: empty, documents: documents)
    }

    /// The documents of `run` as they were at the plan's `target`. Those still at their
    /// planned seq are read in one range scan of (`after`, the run's last seq]: no other
    /// document can be there, as every write since the plan took a seq above its target.
    /// Those written since (moved past the target) are read as they stood at the target.
    static func read(_ db: Connection, _ run: ArraySlice<KeyIndexPlan.Pending>, after: Int64,
                     target: Int64) throws -> KeyIndexBatch {
        let purgeSeq = try purgeSequence(db)
        guard let last = run.last else { return KeyIndexBatch(changes: [], purgeSeq: purgeSeq) }
        var found: [Int64: KeyIndexDocument?] = [:]
        found.reserveCapacity(run.count)
        try db.query("""
            SELECT d.doc_id, d.docid, d.deleted, d.winner, settee_body(r.json, r.crc)
            FROM docs d LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner
            WHERE d.seq > ? AND d.seq <= ?
            """, [.integer(after), .integer(last.seq)]) { row in
            found[row.int64(0)] = .some(Self.document(row))
        }
        var changes = try run.map { pending in
            var document: KeyIndexDocument?
            if let current = found[pending.rowID] {
                document = current
                if let unlinked = current, unlinked.body.isEmpty,
                   let body = try DocumentRecords.winnerBodyFromTree(db, rowID: pending.rowID) {
                    document = KeyIndexDocument(id: unlinked.id, rev: unlinked.rev, body: body)
                }
            } else {
                document = try moved(db, rowID: pending.rowID, at: target)
            }
            document?.seq = pending.seq
            return KeyIndexBatch.Change(rowID: pending.rowID, planned: pending.seq, document: document)
        }
        try addLeavesAndAttachments(db, to: &changes)
        return KeyIndexBatch(changes: changes, purgeSeq: purgeSeq)
    }

    static func purgeSequence(_ db: Connection) throws -> Int64 {
        try db.integer("SELECT value FROM info WHERE key = 'purge_seq'") ?? 0
    }

    /// Removes document row `rowID`'s entries from every key index, inside the purge that
    /// takes the whole document away: no `docs` row is left for a refresh to find, and a
    /// reduce reads the entries without joining the documents.
    static func forget(_ db: Connection, rowID: Int64) throws {
        var tables: [String] = []
        try db.query("SELECT signature FROM key_indexes") { row in
            if let signature = row.text(0), KeyIndex.isValidSignature(signature) { tables.append(KeyIndex.table(signature)) }
        }
        for table in tables {
            guard try db.integer("SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(table)]) ?? 0 > 0 else { continue }
            try db.run("DELETE FROM \(table) WHERE doc_id = ?", [.integer(rowID)])
        }
    }

    /// A document written since the plan, as it stood at `target`: the winner of the
    /// revisions stored by then (a revision's row sequence is the seq that wrote it).
    /// Nil when that winner was a deletion, or the document was purged away since.
    /// When that revision is gone (stemmed to `_revs_limit`) or its body is (compacted),
    /// the current winner serves: a newer version, which the next refresh indexes anyway.
    private static func moved(_ db: Connection, rowID: Int64, at target: Int64) throws -> KeyIndexDocument? {
        let tree = try DocumentRecords.tree(db, rowID: rowID)
        var id: String?
        try db.query("SELECT docid FROM docs WHERE doc_id = ?", [.integer(rowID)]) { id = $0.text(0) }
        guard let id else { return nil }
        let then = RevisionTree(nodes: tree.nodes.values.filter { $0.sequence <= target }).winner
        if let then, then.isDeleted { return nil }
        if let then, then.hasBody, let body = try DocumentRecords.body(db, sequence: then.sequence) {
            return KeyIndexDocument(id: id, rev: then.rev, body: body)
        }
        guard let current = tree.winner, !current.isDeleted,
              let body = try DocumentRecords.winnerBodyFromTree(db, rowID: rowID) else { return nil }
        return KeyIndexDocument(id: id, rev: current.rev, body: body)
    }

    /// A `docs` row of `read` as the key functions see it: nil when deleted; with an
    /// empty body when its winner is unlinked (`DocumentRecords.WinnerRead.unlinked`).
    static func document(_ row: Statement) -> KeyIndexDocument? {
        guard row.int64(2) == 0, let rev = row.revisionID(3) else { return nil }
        return KeyIndexDocument(id: row.text(1) ?? "", rev: rev, body: row.blob(4) ?? [])
    }

    /// Each index's entries for the documents of `batch` it has not seen (none for an
    /// index already at the target): the map functions' work, done outside the writer.
    /// Members of one `KeyIndexGroup` that stand at the same cursor are asked in one call.
    static func entries(_ indexes: [KeyIndex], _ plan: KeyIndexPlan, _ batch: KeyIndexBatch) throws -> [[[KeyIndexEntry]]] {
        var entries: [[[KeyIndexEntry]]?] = indexes.map { _ in nil }
        for position in indexes.indices where entries[position] == nil {
            let since = plan.sinces[position]
            guard since < plan.target else {
                entries[position] = []
                continue
            }
            let documents = batch.documents(after: since)
            guard let group = indexes[position].group else {
                entries[position] = try indexes[position].entries(documents)
                continue
            }
            let together = indexes.indices.filter {
                entries[$0] == nil && plan.sinces[$0] == since && indexes[$0].group === group
            }
            let mapped = try group.entries(documents, together.map { indexes[$0].member })
            for (member, position) in together.enumerated() { entries[position] = member < mapped.count ? mapped[member] : [] }
        }
        return entries.map { $0 ?? [] }
    }

    /// Whether `index` has its table yet (made by its first catch-up).
    static func exists(_ db: Connection, _ index: KeyIndex) throws -> Bool {
        try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(index.table)]) ?? 0 > 0
    }

    /// Drops the tables of every index whose signature is not in `keeping`.
    static func drop(_ db: Connection, keeping: Set<String>) throws {
        var unused: [String] = []
        try db.query("SELECT signature FROM key_indexes") { row in
            if let signature = row.text(0), !keeping.contains(signature) { unused.append(signature) }
        }
        for signature in unused where KeyIndex.isValidSignature(signature) {
            try db.execute("DROP TABLE IF EXISTS \(KeyIndex.table(signature))")
            try db.run("DELETE FROM key_indexes WHERE signature = ?", [.text(signature)])
        }
    }

    /// Up to `limit` rows of `index` in key order within `range`, after `after`.
    static func page(_ db: Connection, _ index: KeyIndex, range: KeyRange, descending: Bool,
                     after: [UInt8]?, limit: Int, bodies: Bool = true) throws -> [KeyIndexRow] {
        guard try exists(db, index) else { return [] }
        let (conditions, arguments) = bounds("k.key", "?", range, descending: descending, after: after, limit: limit)
        let sql = """
            SELECT k.key, d.docid, d.winner, \(bodies ? "settee_body(r.json, r.crc)" : "NULL"), d.doc_id, k.value FROM \(index.table) k
            JOIN docs d ON d.doc_id = k.doc_id
            LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner
            WHERE d.deleted = 0 AND \(conditions)
            ORDER BY k.key \(descending ? "DESC" : "ASC") LIMIT ?
            """
        return try rows(db, sql, arguments, bodies: bodies)
    }

    /// Up to `limit` entries of `index` in key order within `range`, after `after`: the key
    /// and the value only, from the index's own b-tree (no join with the documents: what a
    /// reduce reads, as CouchDB reduces the index as it stands).
    static func entries(_ db: Connection, _ index: KeyIndex, range: KeyRange, descending: Bool,
                        after: [UInt8]?, limit: Int) throws -> [KeyIndexEntry] {
        guard try exists(db, index) else { return [] }
        let (conditions, arguments) = bounds("key", "?", range, descending: descending, after: after, limit: limit)
        var found: [KeyIndexEntry] = []
        try db.query("SELECT key, value FROM \(index.table) WHERE \(conditions) ORDER BY key \(descending ? "DESC" : "ASC") LIMIT ?",
                     arguments) { row in
            found.append(KeyIndexEntry(key: row.blob(0) ?? [], value: row.blob(1) ?? []))
        }
        return found
    }

    /// Up to `limit` live documents that are not design documents, in id order
    /// within `range` (bounds compared as the ids' UTF-8 bytes), after `after`.
    static func allDocumentsPage(_ db: Connection, range: KeyRange, descending: Bool,
                                 after: [UInt8]?, limit: Int) throws -> [KeyIndexRow] {
        // CAST(blob AS TEXT) keeps the bytes as they are: a bound may end in 0xFF,
        // which no String holds; BINARY collation compares them with memcmp.
        let (conditions, arguments) = bounds("d.docid", "CAST(? AS TEXT)", range, descending: descending,
                                             after: after, limit: limit)
        let sql = """
            SELECT CAST(d.docid AS BLOB), d.docid, d.winner, settee_body(r.json, r.crc), d.doc_id, NULL FROM docs d
            LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner
            WHERE d.deleted = 0 AND NOT (d.docid >= '_design/' AND d.docid < '_design0') AND \(conditions)
            ORDER BY d.docid \(descending ? "DESC" : "ASC") LIMIT ?
            """
        return try rows(db, sql, arguments, bodies: true)
    }

    /// The WHERE conditions on `column` for `range` and `after`, and their arguments
    /// (each bound as `parameter`), with `limit` last for the LIMIT.
    private static func bounds(_ column: String, _ parameter: String, _ range: KeyRange, descending: Bool,
                               after: [UInt8]?, limit: Int) -> (String, [SQLiteValue]) {
        var conditions = ["\(column) >= \(parameter)"]
        var arguments: [SQLiteValue] = [.blob(range.lower)]
        if let upper = range.upper {
            conditions.append("\(column) < \(parameter)")
            arguments.append(.blob(upper))
        }
        if let after {
            conditions.append("\(column) \(descending ? "<" : ">") \(parameter)")
            arguments.append(.blob(after))
        }
        arguments.append(.integer(Int64(limit)))
        return (conditions.joined(separator: " AND "), arguments)
    }

    /// Reads `key, docid, winner, json, doc_id, value` rows; with `bodies`, an unlinked
    /// winner's body is read by its tree.
    private static func rows(_ db: Connection, _ sql: String, _ arguments: [SQLiteValue],
                             bodies: Bool) throws -> [KeyIndexRow] {
        guard bodies else {
            // No body to look for: each row made as it is read, not gathered and copied
            // (a view's point query of 100 rows spent a tenth of its CPU copying them).
            var rows: [KeyIndexRow] = []
            try db.query(sql, arguments) { row in
                guard let rev = row.revisionID(2) else { return }
                rows.append(KeyIndexRow(key: row.blob(0) ?? [], id: row.text(1) ?? "", rev: rev, body: [],
                                        value: row.blob(5) ?? []))
            }
            return rows
        }
        var found: [(key: [UInt8], id: String, rev: RevisionID, body: [UInt8]?, rowID: Int64, value: [UInt8])] = []
        try db.query(sql, arguments) { row in
            guard let rev = row.revisionID(2) else { return }
            found.append((row.blob(0) ?? [], row.text(1) ?? "", rev, row.blob(3), row.int64(4), row.blob(5) ?? []))
        }
        return try found.compactMap { row in
            var body = row.body ?? []
            if bodies, row.body == nil {
                guard let stored = try DocumentRecords.winnerBodyFromTree(db, rowID: row.rowID) else { return nil }
                body = stored
            }
            return KeyIndexRow(key: row.key, id: row.id, rev: row.rev, body: body, value: row.value)
        }
    }
}
