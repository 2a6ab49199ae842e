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

    /// One catch-up step: the sequence the tables started from (the lowest), how many
    /// documents it read, whether every index has reached its target, and which indexes
    /// were empty when it began.
    struct Step: Sendable {
        let since: Int64
        let documents: Int
        let isDone: Bool
        let empty: Set<String>
    }

    /// The documents one catch-up step indexes, read from a snapshot: for every index of a
    /// step, where its table stood, and the documents changed since the lowest of those.
    struct Batch: Sendable {
        struct Change: Sendable, Equatable {
            let rowID: Int64
            let seq: Int64
            /// The live winner; nil for a deleted document (its entries go).
            let document: KeyIndexDocument?

            static func == (a: Change, b: Change) -> Bool { a.rowID == b.rowID && a.seq == b.seq }
        }

        let sinces: [Int64]
        let empty: Set<String>
        let changes: [Change]
        /// The sequence the indexes reach once the batch is in.
        let reached: Int64
        let target: Int64

        var since: Int64 { sinces.min() ?? target }
        var isDone: Bool { since >= target }
        /// Where each index stands once this batch is written: the next batch starts there.
        var nextSinces: [Int64] { sinces.map { $0 < target ? max($0, reached) : $0 } }

        /// The documents index `position` has not seen, in order.
        func documents(for position: Int) -> [KeyIndexDocument] {
            changes.filter { $0.seq > sinces[position] }.compactMap(\.document)
        }
    }

    /// Reads up to `batch` documents changed since the tables' sequences, for every index
    /// of `indexes` at once (a design document's views, as CouchDB builds them together).
    /// Needs no write: a reader's snapshot serves, so map functions can run outside the
    /// writer (`Database.refreshIndexes`).
    ///
    /// - Parameter empty: signatures whose tables were empty when this refresh began
    ///   (`Step.empty` of its first step). A document whose seq is at most `target` has
    ///   not changed since then, so it comes once and has no entries to delete: a first
    ///   build only inserts.
    /// - Parameter known: where the indexes stand, when the caller knows (the batch before
    ///   this one is being written): `apply` checks it.
    static func read(_ db: Connection, _ indexes: [KeyIndex], to target: Int64, batch: Int,
                     empty: Set<String>?, known: [Int64]? = nil) throws -> Batch {
        var sinces: [Int64] = known ?? []
        if known == nil {
            for index in indexes {
                sinces.append(try db.integer("SELECT seq FROM key_indexes WHERE signature = ?",
                                             [.text(index.signature)]) ?? 0)
            }
        }
        let empty = empty ?? Set(zip(indexes, sinces).filter { $0.1 == 0 }.map(\.0.signature))
        let since = sinces.min() ?? target
        guard since < target else {
            return Batch(sinces: sinces, empty: empty, changes: [], reached: target, target: target)
        }
        var changes: [Batch.Change] = []
        try db.query("""
            SELECT d.doc_id, d.seq, d.docid, d.deleted, d.winner, r.json
            FROM docs d LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner
            WHERE d.seq > ? ORDER BY d.seq LIMIT ?
            """, [.integer(since), .integer(Int64(batch))]) { row in
            var document: KeyIndexDocument?
            if row.int64(3) == 0, let rev = row.revisionID(4), let body = row.blob(5) {
                document = KeyIndexDocument(id: row.text(2) ?? "", rev: rev, body: body)
            } else if row.int64(3) == 0, let rev = row.revisionID(4) {
                // An unlinked winner (`DocumentRecords.WinnerRead.unlinked`): read below.
                document = KeyIndexDocument(id: row.text(2) ?? "", rev: rev, body: [])
            }
            changes.append(Batch.Change(rowID: row.int64(0), seq: row.int64(1), document: document))
        }
        for i in changes.indices {
            if let document = changes[i].document, document.body.isEmpty,
               let body = try DocumentRecords.winnerBodyFromTree(db, rowID: changes[i].rowID) {
                changes[i] = Batch.Change(rowID: changes[i].rowID, seq: changes[i].seq,
                                          document: KeyIndexDocument(id: document.id, rev: document.rev, body: body))
            }
        }
        let reached = changes.count < batch ? target : (changes.last?.seq ?? target)
        return Batch(sinces: sinces, empty: empty, changes: changes, reached: reached, target: target)
    }

    /// Each index's entries for the documents of `batch` it has not seen (empty for an
    /// index already at the target): the map functions' work, done wherever the caller is.
    static func entries(_ indexes: [KeyIndex], _ batch: Batch) throws -> [[[KeyIndexEntry]]] {
        try indexes.indices.map { position in
            batch.sinces[position] < batch.target ? try indexes[position].entries(batch.documents(for: position)) : []
        }
    }

    /// Writes `entries` (made from `batch`) if nothing `batch` read has changed since: the
    /// tables at the same sequences, and the same documents at the same sequences in its
    /// window. Nil when something did: the caller does the step inside the writer instead.
    static func apply(_ db: Connection, _ indexes: [KeyIndex], _ batch: Batch, _ entries: [[[KeyIndexEntry]]],
                      limit: Int) throws -> Step? {
        for (index, since) in zip(indexes, batch.sinces) {
            try create(db, index)
            guard try db.integer("SELECT seq FROM key_indexes WHERE signature = ?", [.text(index.signature)]) == since
            else { return nil }
        }
        // A document of the batch written since has left its place (its seq moved past the
        // batch); writes after the batch's last seq are the next step's.
        var window: [Batch.Change] = []
        try db.query("SELECT doc_id, seq FROM docs WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
                     [.integer(batch.since), .integer(batch.changes.last?.seq ?? batch.since),
                      .integer(Int64(limit))]) { row in
            window.append(Batch.Change(rowID: row.int64(0), seq: row.int64(1), document: nil))
        }
        guard window == batch.changes else { return nil }
        return try write(db, indexes, batch, entries)
    }

    /// One catch-up step entirely inside the writer: read, map, write.
    static func catchUp(_ db: Connection, _ indexes: [KeyIndex], to target: Int64, batch: Int,
                        empty: Set<String>? = nil) throws -> Step {
        for index in indexes { try create(db, index) }
        let read = try read(db, indexes, to: target, batch: batch, empty: empty)
        return try write(db, indexes, read, try entries(indexes, read))
    }

    private static func write(_ db: Connection, _ indexes: [KeyIndex], _ batch: Batch,
                              _ entries: [[[KeyIndexEntry]]]) throws -> Step {
        guard !batch.isDone else { return Step(since: batch.since, documents: 0, isDone: true, empty: batch.empty) }
        for (position, index) in indexes.enumerated() where batch.sinces[position] < batch.target {
            let indexSince = batch.sinces[position]
            let wasEmpty = batch.empty.contains(index.signature)
            // The statements' text is made once per batch, not once per row (a build's hot loop).
            let deleteDocument = "DELETE FROM \(index.table) WHERE doc_id = ?"
            let deleteKey = "DELETE FROM \(index.table) WHERE key = ?"
            let insert = try db.prepared("INSERT INTO \(index.table)(key, doc_id, value) VALUES (?, ?, ?)")
            var next = 0
            for change in batch.changes where change.seq > indexSince {
                let isNew = wasEmpty && change.seq <= batch.target
                if !isNew { try db.run(deleteDocument, [.integer(change.rowID)]) }
                guard change.document != nil else { continue }
                defer { next += 1 }
                guard next < entries[position].count else { continue }
                for entry in entries[position][next] {
                    // A purged document's stale entry may hold the same key (same id): removed
                    // first. Not INSERT OR REPLACE: inside the writer's savepoint that failed
                    // with SQLITE_FULL after some 50,000 rows (KeyIndexTests.tensOfThousands).
                    if !isNew { try db.run(deleteKey, [.blob(entry.key)]) }
                    try insert.bind([.blob(entry.key), .integer(change.rowID), .blob(entry.value)])
                    defer { insert.reset() }
                    while try insert.step() {}
                }
            }
            try db.run("UPDATE key_indexes SET seq = ? WHERE signature = ?",
                       [.integer(max(batch.reached, indexSince)), .text(index.signature)])
        }
        return Step(since: batch.since, documents: batch.changes.count, isDone: batch.reached >= batch.target,
                    empty: batch.empty)
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
            SELECT k.key, d.docid, d.winner, \(bodies ? "r.json" : "NULL"), d.doc_id, k.value FROM \(index.table) k
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
            SELECT CAST(d.docid AS BLOB), d.docid, d.winner, r.json, d.doc_id, NULL FROM docs d
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
