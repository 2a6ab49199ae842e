internal import Synchronization

/// The small blobs of a `BlobStore`: one SQLite file in its directory (`small.sqlite`)
/// holding every blob of at most `[attachments] inline_max_bytes`, keyed by digest as
/// the files beside it are named.
///
/// Why: a blob file costs an inode, an fsync of the file and one of its directory, and
/// ext4's inode allocation alone was a quarter of a replication's samples; a batch of
/// small blobs here is one transaction and one fsync (bench/RESULTS.md, "Attachments in
/// a blob database"). Its pages are 64 KiB, not the document file's 4 KiB: SQLite writes
/// a WAL frame as two `pwrite`s and copies it once more at checkpoint, so 4 KiB pages
/// meant about a million system calls per GB of attachments. SQLite's own measurements
/// put reads of BLOBs under about 100 KB faster from a database file than from separate
/// files (https://sqlite.org/intern-v-extern-blob.html); larger blobs stay files, which
/// also stream in pieces.
///
/// Durability is the blob files' rule: a batch commits (synchronous=FULL) before the
/// revisions naming it are written, so a committed revision never names a missing blob;
/// a failed or crashed write leaves unreferenced rows, which compaction sweeps.
///
/// Two connections, each used under its own lock: writes are batches of whole blobs,
/// reads point lookups of one blob, so neither is held for long.
final class SmallBlobFile: Sendable {
    static let fileName = "small.sqlite"
    private let writer: Mutex<Connection>
    private let reader: Mutex<Connection>

    /// Opens (creating) `small.sqlite` in `directory`.
    /// - Throws: `StoreError.sqlite` when it cannot be opened.
    init(directory: String) throws {
        let path = directory + "/" + Self.fileName
        let writer = try Connection(path: path, newFileSettings: "PRAGMA page_size=65536; PRAGMA auto_vacuum=INCREMENTAL;")
        try writer.execute("CREATE TABLE IF NOT EXISTS blobs (digest BLOB PRIMARY KEY, data BLOB NOT NULL)")
        self.writer = Mutex(writer)
        reader = Mutex(try Connection(path: path))
    }

    /// Stores `blobs` in one transaction, durable when this returns; identical bytes
    /// already stored are kept (same digest).
    func insert(_ blobs: [(key: BlobKey, bytes: [UInt8])]) throws {
        try writer.withLock { db in
            try db.run("BEGIN IMMEDIATE")
            do {
                for blob in blobs {
                    try db.run("INSERT OR IGNORE INTO blobs(digest, data) VALUES (?, ?)",
                               [.blob(blob.key.md5), .blob(blob.bytes)])
                }
                try db.run("COMMIT")
            } catch {
                try? db.run("ROLLBACK")
                throw error
            }
        }
    }

    /// The bytes stored under `key`, or nil when it is not kept here.
    func read(_ key: BlobKey) throws -> [UInt8]? {
        try reader.withLock { db in
            var found: [UInt8]?
            try db.query("SELECT data FROM blobs WHERE digest = ?", [.blob(key.md5)]) { found = $0.blob(0) ?? [] }
            return found
        }
    }

    func contains(_ key: BlobKey) throws -> Bool {
        try reader.withLock { db in
            try db.integer("SELECT count(*) FROM blobs WHERE digest = ?", [.blob(key.md5)]) ?? 0 > 0
        }
    }

    func keys() throws -> [BlobKey] {
        try reader.withLock { db in
            var keys: [BlobKey] = []
            try db.query("SELECT digest FROM blobs") { row in
                if let key = row.blob(0).flatMap(BlobKey.init(md5:)) { keys.append(key) }
            }
            return keys
        }
    }

    /// Deletes every blob not in `referenced` and gives the freed pages back to the
    /// file system. Returns how many were deleted.
    @discardableResult
    func sweep(keeping referenced: Set<BlobKey>) throws -> Int {
        let unreferenced = try keys().filter { !referenced.contains($0) }
        guard !unreferenced.isEmpty else { return 0 }
        try writer.withLock { db in
            try db.run("BEGIN IMMEDIATE")
            do {
                for key in unreferenced { try db.run("DELETE FROM blobs WHERE digest = ?", [.blob(key.md5)]) }
                try db.run("COMMIT")
            } catch {
                try? db.run("ROLLBACK")
                throw error
            }
            try db.execute("PRAGMA incremental_vacuum")
        }
        return unreferenced.count
    }

    func close() {
        writer.withLock { $0.close() }
        reader.withLock { $0.close() }
    }
}
