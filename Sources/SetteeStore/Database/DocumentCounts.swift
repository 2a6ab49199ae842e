/// `doc_count`, `doc_del_count` and `sizes.external`, kept as running totals in
/// the `info` table.
///
/// Why totals and not `count(*)`: counting scans every row, so `GET /{db}`
/// took tens of milliseconds on a 100k-document database, and every
/// replicator and PouchDB client asks for it. CouchDB keeps the same figures
/// in its file header for the same reason. The writer adds each write job's
/// `DocumentCounts.Change` inside that job's savepoint, so the totals commit
/// or roll back with the rows they describe.
///
/// External size is the bytes of every leaf revision's JSON body (`current = 1`).
enum DocumentCounts {
    /// What one write job changed; added to the stored totals at its end.
    struct Change {
        var live = 0
        var deleted = 0
        var externalBytes = 0

        var isEmpty: Bool { live == 0 && deleted == 0 && externalBytes == 0 }

        /// A document's winner went from `before` to `after` (nil: no document).
        mutating func document(wasDeleted before: Bool?, isDeleted after: Bool?) {
            for (state, sign) in [(before, -1), (after, 1)] {
                switch state {
                case .some(false): live += sign
                case .some(true): deleted += sign
                case .none: break
                }
            }
        }
    }

    struct Totals: Equatable {
        var live: Int
        var deleted: Int
        var externalBytes: Int64
    }

    /// Schema migration 2 → 3: seeds the totals from the rows once.
    static let migration = """
        INSERT OR REPLACE INTO info(key, value) SELECT 'doc_count', count(*) FROM docs WHERE deleted = 0;
        INSERT OR REPLACE INTO info(key, value) SELECT 'doc_del_count', count(*) FROM docs WHERE deleted = 1;
        INSERT OR REPLACE INTO info(key, value)
            SELECT 'external_size', coalesce(sum(length(json)), 0) FROM revs WHERE current = 1;
        """

    static func totals(_ db: Connection) throws -> Totals {
        var values: [String: Int64] = [:]
        try db.query("SELECT key, value FROM info WHERE key IN ('doc_count', 'doc_del_count', 'external_size')") { row in
            if let key = row.text(0) { values[key] = row.int64(1) }
        }
        return Totals(live: Int(values["doc_count"] ?? 0), deleted: Int(values["doc_del_count"] ?? 0),
                      externalBytes: values["external_size"] ?? 0)
    }

    /// The totals as a scan of the rows finds them; what `totals` must always equal.
    static func recount(_ db: Connection) throws -> Totals {
        Totals(live: Int(try db.integer("SELECT count(*) FROM docs WHERE deleted = 0") ?? 0),
               deleted: Int(try db.integer("SELECT count(*) FROM docs WHERE deleted = 1") ?? 0),
               externalBytes: try db.integer("SELECT coalesce(sum(length(json)), 0) FROM revs WHERE current = 1") ?? 0)
    }

    static func add(_ db: Connection, _ change: Change) throws {
        guard !change.isEmpty else { return }
        for (key, delta) in [("doc_count", change.live), ("doc_del_count", change.deleted),
                             ("external_size", change.externalBytes)] where delta != 0 {
            try db.run("UPDATE info SET value = value + ? WHERE key = ?", [.integer(Int64(delta)), .text(key)])
        }
    }

    /// Marks revision row `sequence` as no longer a leaf; returns the body bytes
    /// that leaves the external size (0 when it was not a leaf).
    static func retireLeaf(_ db: Connection, sequence: Int64) throws -> Int {
        Int(try db.integer("UPDATE revs SET current = 0 WHERE sequence = ? AND current = 1 RETURNING length(json)",
                           [.integer(sequence)]) ?? 0)
    }
}
