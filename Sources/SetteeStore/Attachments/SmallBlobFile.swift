internal import Glibc
internal import Synchronization

/// The small blobs of a `BlobStore`: one SQLite file in its directory (`small.sqlite`)
/// holding every blob of at most `[attachments] inline_max_bytes`, keyed by digest as
/// the files beside it are named.
///
/// Why: a blob file costs an inode, an fsync of the file and one of its directory, and
/// ext4's inode allocation alone was a quarter of a replication's samples; a batch of
/// small blobs here is one transaction and one fsync (bench/RESULTS.md, "Attachments in
/// a blob database"). Its pages are 32 KiB, not the document file's 4 KiB: SQLite writes
/// a WAL frame as two `pwrite`s and copies it once more at checkpoint, so 4 KiB pages
/// meant about a million system calls per GB of attachments; a 100 KB blob fills three
/// 32 KiB overflow pages with 2 % to spare, where 64 KiB pages left 28 % of the file
/// unused (1,251 against 983 MB for 1 GB of blobs). SQLite's own measurements
/// put reads of BLOBs under about 100 KB faster from a database file than from separate
/// files (https://sqlite.org/intern-v-extern-blob.html); larger blobs stay files, which
/// also stream in pieces.
///
/// Durability is the blob files' rule: a batch commits (synchronous=FULL) before the
/// revisions naming it are written, so a committed revision never names a missing blob;
/// a failed or crashed write leaves unreferenced rows, which compaction sweeps.
///
/// Connections, each used under its own lock, are opened on first use, and the file is
/// made by the first write: most databases never hold an attachment. One writes (batches
/// of whole blobs); two read (point lookups of one blob), so concurrent attachment reads
/// seldom queue on one lock (with one, its slow path was 1–2 % of a replication source's
/// samples; no change in throughput was measured either way).
final class SmallBlobFile: Sendable {
    static let fileName = "small.sqlite"
    static let readerCount = 2
    private let path: String
    private let writer: WriterConnection
    private let readers: [Slot]
    private let nextReader = Atomic<Int>(0)
    private let commits: GroupCommit<StagedRow>

    init(directory: String) {
        path = directory + "/" + Self.fileName
        readers = (0..<Self.readerCount).map { _ in Slot() }
        let writer = WriterConnection(path: path)
        self.writer = writer
        commits = GroupCommit(label: "settee.small-blobs") { rows in
            try writer.transaction { db in
                for row in rows {
                    try db.run("INSERT OR IGNORE INTO blobs(digest, data) VALUES (?, ?)", [.blob(row.key.md5)],
                               borrowing: row.bytes)
                }
            }
        }
    }

    /// Stores `blobs`, durable when this returns; identical bytes already stored are kept
    /// (same digest). Stores that arrive while one commits go together in the next
    /// transaction (`GroupCommit`): a server taking many small attachments at once, one
    /// request each (a replicator's `PUT`s), shares one fsync among them.
    /// - Throws: `StoreError.sqlite`.
    func insert(_ blobs: [(key: BlobKey, bytes: [UInt8])]) async throws {
        try await commits.submit(blobs.map { StagedRow(key: $0.key, bytes: $0.bytes) })
    }

    /// One blob waiting for its commit.
    private struct StagedRow: Sendable {
        let key: BlobKey
        let bytes: [UInt8]
    }

    /// The bytes stored under `key`, or nil when it is not kept here.
    func read(_ key: BlobKey) throws -> [UInt8]? {
        try withReader { db in
            var found: [UInt8]?
            try db.query("SELECT data FROM blobs WHERE digest = ?", [.blob(key.md5)]) { found = $0.blob(0) ?? [] }
            return found
        } ?? nil
    }

    func contains(_ key: BlobKey) throws -> Bool {
        try withReader { db in
            try db.integer("SELECT count(*) FROM blobs WHERE digest = ?", [.blob(key.md5)]) ?? 0 > 0
        } ?? false
    }

    func keys() throws -> [BlobKey] {
        try withReader { db in
            var keys: [BlobKey] = []
            try db.query("SELECT digest FROM blobs") { row in
                if let key = row.blob(0).flatMap(BlobKey.init(md5:)) { keys.append(key) }
            }
            return keys
        } ?? []
    }

    /// Runs `work` on a free reader (else the next in turn); nil while no blob was ever
    /// written here (no file, or a file whose table a first write has not committed yet).
    private func withReader<T>(_ work: (Connection) throws -> T) throws -> T? {
        var slot: Slot?
        for reader in readers where reader.lock.tryLock() {
            slot = reader
            break
        }
        if slot == nil {
            slot = readers[nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
            slot?.lock.lock()
        }
        guard let slot else { return nil }
        defer { slot.lock.unlock() }
        if slot.connection == nil {
            guard access(path, F_OK) == 0 else { return nil }
            let opened = try Connection(path: path)
            guard try opened.integer("SELECT count(*) FROM sqlite_master WHERE name = 'blobs'") ?? 0 > 0 else { return nil }
            slot.connection = opened
        }
        return try slot.connection.map(work)
    }

    /// Deletes every blob not in `referenced` and gives the freed pages back to the
    /// file system. Returns how many were deleted.
    @discardableResult
    func sweep(keeping referenced: Set<BlobKey>) throws -> Int {
        let unreferenced = try keys().filter { !referenced.contains($0) }
        guard !unreferenced.isEmpty else { return 0 }
        try writer.transaction { db in
            for key in unreferenced { try db.run("DELETE FROM blobs WHERE digest = ?", [.blob(key.md5)]) }
            try db.execute("PRAGMA incremental_vacuum")
        }
        return unreferenced.count
    }

    func close() {
        writer.close()
        for reader in readers { reader.lock.withLock { reader.connection?.close() } }
    }

    /// The writing connection, opened (and the file made) by the first write.
    private final class WriterConnection: Sendable {
        let path: String
        private let connection = Mutex<Connection?>(nil)

        init(path: String) { self.path = path }

        /// Runs `body` in one transaction: committed (durable) when this returns, else rolled back.
        func transaction(_ body: (Connection) throws -> Void) throws {
            try connection.withLock { connection in
                let db = try connection ?? Self.open(path)
                connection = db
                try db.run("BEGIN IMMEDIATE")
                do {
                    try body(db)
                    try db.run("COMMIT")
                } catch {
                    try? db.run("ROLLBACK")
                    throw error
                }
            }
        }

        private static func open(_ path: String) throws -> Connection {
            let db = try Connection(path: path, newFileSettings: "PRAGMA page_size=32768; PRAGMA auto_vacuum=INCREMENTAL;")
            try db.execute("CREATE TABLE IF NOT EXISTS blobs (digest BLOB PRIMARY KEY, data BLOB NOT NULL)")
            return db
        }

        func close() { connection.withLock { $0?.close() } }
    }

    /// A reader connection and its lock.
    private final class Slot: @unchecked Sendable {
        // @unchecked: `connection` is touched only under `lock`.
        let lock = Lock()
        var connection: Connection?
    }
}
