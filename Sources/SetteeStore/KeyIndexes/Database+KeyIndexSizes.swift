/// The sizes of key indexes (a design document's `_info` `sizes`) and their compaction
/// (`POST /{db}/_compact/{ddoc}`). An index is a table of the database's own file, so
/// compacting it cannot shrink the file by itself; it rewrites the table in key order,
/// so its pages are full again after the splits and holes of incremental updates, and
/// the pages it leaves go to SQLite's free list for the table to grow into (a database
/// `_compact` then gives them back to the file system).
extension Database {
    /// `file`: the bytes of the pages of the indexes' tables (and their by-document
    /// indexes); `active`: the bytes used in those pages; `external`: the bytes of the
    /// entries themselves. From SQLite's `dbstat` (zeros when this SQLite lacks it).
    public func indexSizes(_ signatures: [String]) async throws -> (file: Int64, active: Int64, external: Int64) {
        let tables = signatures.filter(KeyIndex.isValidSignature).map(KeyIndex.table)
        return try await readers.read(.scan) { db in
            var sizes: (file: Int64, active: Int64, external: Int64) = (0, 0, 0)
            for name in tables.flatMap({ [$0, $0 + "_by_doc"] }) {
                do {
                    try db.query("SELECT coalesce(sum(pgsize), 0), coalesce(sum(pgsize - unused), 0), coalesce(sum(payload), 0) FROM dbstat WHERE name = ?",
                                 [.text(name)]) { row in
                        sizes.file += row.int64(0)
                        sizes.active += row.int64(1)
                        if !name.hasSuffix("_by_doc") { sizes.external += row.int64(2) }
                    }
                } catch {
                    return (0, 0, 0)  // no dbstat in this SQLite
                }
            }
            return sizes
        }
    }

    /// Rewrites the tables of the indexes `signatures` names in key order, in one write.
    public func compactIndexes(_ signatures: [String]) async throws {
        let tables = signatures.filter(KeyIndex.isValidSignature).map(KeyIndex.table)
        try await writer.write { db in
            for table in tables {
                guard try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                                     [.text(table)]) ?? 0 > 0 else { continue }
                try db.execute("""
                    CREATE TABLE \(table)_compact (key BLOB NOT NULL PRIMARY KEY, doc_id INTEGER NOT NULL,
                                                   value BLOB NOT NULL) WITHOUT ROWID;
                    INSERT INTO \(table)_compact(key, doc_id, value) SELECT key, doc_id, value FROM \(table) ORDER BY key;
                    DROP TABLE \(table);
                    ALTER TABLE \(table)_compact RENAME TO \(table);
                    CREATE INDEX \(table)_by_doc ON \(table)(doc_id);
                    """)
            }
        }
    }
}
