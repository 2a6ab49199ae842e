/// A refresh's write jobs: one job writes a group of runs, read and mapped beforehand.
extension KeyIndexRecords {
    /// Writes the entries of `runs` (each a batch and what it mapped to) and moves each
    /// index from `cursors` to `reached`; false, writing nothing, when some table is not at
    /// its cursor (dropped meanwhile): the refresh starts again from a new plan.
    static func write(_ db: Connection, _ indexes: [KeyIndex], _ plan: KeyIndexPlan, _ runs: [PreparedRun],
                      from cursors: [Int64], to reached: [Int64]) throws -> Bool {
        for (position, index) in indexes.enumerated() where plan.sinces[position] < plan.target {
            try create(db, index)
            guard try db.integer("SELECT seq FROM key_indexes WHERE signature = ?", [.text(index.signature)])
                    == cursors[position] else { return false }
        }
        // A purge since a batch was read may have taken some of its documents away
        // (and their entries, `forget`): those are not written back.
        var gone: Set<Int64> = []
        let purgeSeq = try purgeSequence(db)
        for run in runs where run.batch.purgeSeq != purgeSeq {
            for change in run.batch.changes where change.document != nil {
                let rows = try db.integer("SELECT count(*) FROM docs WHERE doc_id = ?", [.integer(change.rowID)])
                if rows == 0 { gone.insert(change.rowID) }
            }
        }
        for (position, index) in indexes.enumerated() where plan.sinces[position] < plan.target {
            let since = plan.sinces[position]
            if plan.empty.contains(index.signature) {
                var rows = SortedRows()
                for run in runs { rows.add(run, position, after: since, skipping: gone) }
                try rows.insert(into: db, index)
            } else {
                for run in runs {
                    try replace(db, index, run.batch, run.entries[position], after: since, skipping: gone)
                }
            }
            try db.run("UPDATE key_indexes SET seq = ? WHERE signature = ?",
                       [.integer(reached[position]), .text(index.signature)])
        }
        return true
    }

    /// One index's part of a batch, for an index that has entries already: a document's
    /// old entries go, then its new ones go in.
    private static func replace(_ db: Connection, _ index: KeyIndex, _ batch: KeyIndexBatch, _ entries: [[KeyIndexEntry]],
                                after since: Int64, skipping gone: Set<Int64>) throws {
        // The statements' text is made once per batch, not once per row (a build's hot loop).
        let deleteDocument = "DELETE FROM \(index.table) WHERE doc_id = ?"
        let deleteKey = "DELETE FROM \(index.table) WHERE key = ?"
        let insert = try db.prepared("INSERT INTO \(index.table)(key, doc_id, value) VALUES (?, ?, ?)")
        var next = 0
        for change in batch.changes where change.planned > since {
            try db.run(deleteDocument, [.integer(change.rowID)])
            guard change.document != nil else { continue }
            defer { next += 1 }
            guard next < entries.count, !gone.contains(change.rowID) else { continue }
            for entry in entries[next] {
                // A purged document's stale entry may hold the same key (same id): removed
                // first. Not INSERT OR REPLACE: inside the writer's savepoint that failed
                // with SQLITE_FULL after some 50,000 rows (KeyIndexTests.tensOfThousands).
                try db.run(deleteKey, [.blob(entry.key)])
                try insert.bind([.blob(entry.key), .integer(change.rowID), .blob(entry.value)])
                defer { insert.reset() }
                while try insert.step() {}
            }
        }
    }
}

/// The new rows of one index in a write job, inserted in key order into an index built
/// for the first time (no document has entries yet): each lands beside the one before it,
/// so a job writes the leaves it fills instead of most of the table's. Keys in document
/// order are random for a view like `emit(doc.score)`: every job of 2,000 documents
/// rewrote most leaves, and a 100,000-document build wrote its 5 MB index ten times over
/// into the WAL (bench/RESULTS.md, "View builds: where the time goes").
///
/// The keys and values are copied into two buffers and an order of row numbers is sorted,
/// so sorting and binding them moves no array (each retain and release of a key's array
/// was a tenth of a build's CPU).
struct SortedRows {
    private var keys: [UInt8] = []
    private var values: [UInt8] = []
    /// Row i's key is `keys[keyEnds[i - 1]..<keyEnds[i]]` (from 0 for the first); its value likewise.
    private var keyEnds: [Int] = []
    private var valueEnds: [Int] = []
    private var rowIDs: [Int64] = []

    /// The entries of index `position` in `run`, for the documents it has not seen.
    mutating func add(_ run: PreparedRun, _ position: Int, after since: Int64, skipping gone: Set<Int64>) {
        let entries = run.entries[position]
        var next = 0
        for change in run.batch.changes where change.planned > since && change.document != nil {
            defer { next += 1 }
            guard next < entries.count, !gone.contains(change.rowID) else { continue }
            for entry in entries[next] {
                keys.append(contentsOf: entry.key)
                values.append(contentsOf: entry.value)
                keyEnds.append(keys.count)
                valueEnds.append(values.count)
                rowIDs.append(change.rowID)
            }
        }
    }

    func insert(into db: Connection, _ index: KeyIndex) throws {
        let insert = try db.prepared("INSERT INTO \(index.table)(key, doc_id, value) VALUES (?, ?, ?)")
        try keys.withUnsafeBytes { keys in
            try values.withUnsafeBytes { values in
                for row in order(keys) {
                    let key = UnsafeRawBufferPointer(rebasing: keys[start(keyEnds, row)..<keyEnds[row]])
                    let value = UnsafeRawBufferPointer(rebasing: values[start(valueEnds, row)..<valueEnds[row]])
                    try insert.run(borrowing: key, rowIDs[row], value)
                }
            }
        }
    }

    /// The keys in the order `insert` writes them (for tests).
    var keysInOrder: [[UInt8]] {
        keys.withUnsafeBytes { keys in order(keys).map { Array(keys[start(keyEnds, $0)..<keyEnds[$0]]) } }
    }

    private func start(_ ends: [Int], _ row: Int) -> Int { row == 0 ? 0 : ends[row - 1] }

    /// The row numbers in key order, as SQLite compares blobs (memcmp, then the shorter first).
    private func order(_ keys: UnsafeRawBufferPointer) -> [Int] {
        var order = Array(rowIDs.indices)
        keyEnds.withUnsafeBufferPointer { ends in
            func key(_ row: Int) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: keys[(row == 0 ? 0 : ends[row - 1])..<ends[row]])
            }
            order.sort { a, b in
                let x = key(a), y = key(b)
                for i in 0..<min(x.count, y.count) where x[i] != y[i] { return x[i] < y[i] }
                return x.count < y.count
            }
        }
        return order
    }
}
