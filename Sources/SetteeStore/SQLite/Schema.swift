/// The database file's tables, migrated by `PRAGMA user_version`.
///
/// Modelled on TouchDB's schema: `docs` maps a document id to a row id and
/// caches the winner (its revid, and its `revs` row as `winner_seq`), `revs`
/// holds one row per revision with a parent link
/// (its `sequence` is the `_changes` seq of the write that stored it).
/// `docs.docid` uses SQLite's BINARY collation (memcmp of UTF-8 bytes): that
/// is `_all_docs` order, see `Database+Reading.swift`.
enum Schema {
    /// One step of the schema: SQL, or Swift for what SQL cannot say.
    enum Migration: ExpressibleByStringLiteral {
        case sql(String)
        case code(@Sendable (Connection) throws -> Void)

        init(stringLiteral value: String) { self = .sql(value) }
    }

    /// Each entry migrates from `user_version == index` to `index + 1`.
    static let migrations: [Migration] = [
        """
        CREATE TABLE docs (
            doc_id INTEGER PRIMARY KEY,
            docid TEXT NOT NULL UNIQUE COLLATE BINARY,
            seq INTEGER NOT NULL DEFAULT 0,
            winner TEXT,
            deleted INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX docs_by_seq ON docs(seq);
        CREATE TABLE revs (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_id INTEGER NOT NULL,
            revid TEXT NOT NULL,
            parent INTEGER,
            current INTEGER NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            json BLOB,
            UNIQUE (doc_id, revid));
        CREATE INDEX revs_current ON revs(doc_id, current);
        CREATE INDEX revs_parent ON revs(parent);
        CREATE TABLE localdocs (
            docid TEXT PRIMARY KEY COLLATE BINARY,
            revid TEXT NOT NULL,
            json BLOB NOT NULL);
        CREATE TABLE info (key TEXT PRIMARY KEY, value);
        """,
        // 1 → 2: attachments, one row per attachment of a revision row (`sequence`).
        // `digest` (16 MD5 bytes of the stored bytes) is also the blob key in the
        // database's BlobStore; rows go with their revision (stemming, compaction).
        """
        CREATE TABLE attachments (
            sequence INTEGER NOT NULL,
            name TEXT NOT NULL,
            content_type TEXT NOT NULL,
            digest BLOB NOT NULL,
            revpos INTEGER NOT NULL,
            length INTEGER NOT NULL,
            encoded_length INTEGER NOT NULL,
            encoding TEXT,
            UNIQUE (sequence, name));
        CREATE INDEX attachments_by_digest ON attachments(digest);
        """,
        // 2 → 3: running document totals for `GET /{db}` (DocumentCounts).
        .sql(DocumentCounts.migration),
        // 3 → 4: two indexes no query needed, each an extra b-tree insert per revision
        // written. Reads by document use UNIQUE (doc_id, revid); stemming looks up
        // children by (doc_id, parent) through the same index.
        """
        DROP INDEX IF EXISTS revs_current;
        DROP INDEX IF EXISTS revs_parent;
        """,
        // 4 → 5: the winner's revision row, so a plain `GET` reads it by its integer
        // key instead of searching UNIQUE (doc_id, revid) for the winner's revid
        // (bench/RESULTS.md, "Winner reads").
        """
        ALTER TABLE docs ADD COLUMN winner_seq INTEGER;
        UPDATE docs SET winner_seq =
            (SELECT r.sequence FROM revs r WHERE r.doc_id = docs.doc_id AND r.revid = docs.winner);
        """,
        // 5 → 6: winners chosen before revision ids compared as CouchDB stores them
        // (`RevisionID.<`): a document whose leaves mixed hex and other ids may name
        // the wrong one. Re-derive each winner of a document with several leaves.
        .code(WinnerRederivation.run),
        // 6 → 7: the log of `_purge` requests (`_purged_infos`), `purge_seq` keyed;
        // `revs` holds the requested revision ids as a JSON array.
        """
        CREATE TABLE IF NOT EXISTS purges (purge_seq INTEGER PRIMARY KEY, docid TEXT NOT NULL, revs TEXT NOT NULL);
        """,
        // 7 → 8: key indexes (Mango's `json` indexes): the update sequence each
        // `key_index_<signature>` table has caught up to (KeyIndexRecords).
        """
        CREATE TABLE IF NOT EXISTS key_indexes (signature TEXT PRIMARY KEY, seq INTEGER NOT NULL DEFAULT 0);
        """,
        // 8 → 9: the documents in conflict, kept as writes land (ConflictRecords).
        .sql(ConflictRecords.migration),
        // 9 → 10: a checksum of each revision body, checked when read (BodyChecksum).
        .code(BodyChecksum.migrate),
    ]

    /// Brings the schema up to date inside one transaction; `revsLimit` seeds a new file.
    /// - Throws: `StoreError.newerSchema` for a file a newer Settee wrote: this code
    ///   would write it without what that schema keeps (a `docs` row's `winner_seq`
    ///   left stale, say), so it refuses, as CouchDB refuses a newer disk version.
    static func migrate(_ connection: Connection, path: String, revsLimit: Int) throws {
        let version = Int(try connection.integer("PRAGMA user_version") ?? 0)
        guard version <= migrations.count else {
            throw StoreError.newerSchema(path: path, version: version, supported: migrations.count)
        }
        guard version < migrations.count else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            for index in version..<migrations.count {
                switch migrations[index] {
                case .sql(let sql): try connection.execute(sql)
                case .code(let step): try step(connection)
                }
            }
            if version == 0 {
                try connection.run("INSERT INTO info(key, value) VALUES ('revs_limit', ?)",
                                   [.integer(Int64(revsLimit))])
                try connection.run("INSERT INTO info(key, value) VALUES ('purge_seq', 0)")
            }
            // user_version cannot take a bound parameter; the value is our own integer.
            try connection.execute("PRAGMA user_version = \(migrations.count)")
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
