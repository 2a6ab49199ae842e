internal import Glibc
internal import Synchronization

/// The small blobs of a `BlobStore`: one SQLite file in its directory (`small.sqlite`)
/// holding every blob of at most `[attachments] inline_max_bytes`, keyed by digest as
/// the files beside it are named.
///
/// Why: a blob file costs an inode, an fsync of the file and one of its directory, and
/// ext4's inode allocation alone was a quarter of a replication's samples; a batch of
/// small blobs here is one transaction and one fsync (bench/RESULTS.md, "Attachments in
/// a blob database"). Its pages are 32 KiB, not the document file's 4 KiB (chosen when
/// every blob was a row): SQLite writes a WAL frame as two `pwrite`s and copies it once
/// more at checkpoint, so 4 KiB pages meant about a million system calls per GB of
/// attachments; a 100 KB blob fills three
/// 32 KiB overflow pages with 2 % to spare, where 64 KiB pages left 28 % of the file
/// unused (1,251 against 983 MB for 1 GB of blobs). SQLite's own measurements
/// put reads of BLOBs under about 100 KB faster from a database file than from separate
/// files (https://sqlite.org/intern-v-extern-blob.html); larger blobs stay files, which
/// also stream in pieces.
///
/// Blobs of `packMinimum` bytes or more are not rows: their bytes go to the pack file
/// beside it (`BlobPackAppender`, written once and with direct I/O) and a row of the
/// `packed` table says where. Smaller ones stay rows of `blobs`, as every blob was before
/// the pack file (such files are read as they are): the pack pads each blob to a 4 KiB
/// block, which would waste up to half of one under 16 KiB.
///
/// Durability is the blob files' rule: a batch commits (synchronous=FULL, after the pack
/// file's fdatasync) before the revisions naming it are written, so a committed revision
/// never names a missing blob; a failed or crashed write leaves unreferenced rows or pack
/// bytes, which compaction sweeps.
///
/// Connections, each used under its own lock, are opened on first use, and the file is
/// made by the first write: most databases never hold an attachment. One writes (batches
/// of whole blobs); two read (point lookups of one blob), so concurrent attachment reads
/// seldom queue on one lock (with one, its slow path was 1–2 % of a replication source's
/// samples; no change in throughput was measured either way).
final class SmallBlobFile: Sendable {
    static let fileName = "small.sqlite"
    static let readerCount = 2
    /// Blobs of this many bytes or more go to the pack file.
    static let packMinimum = 16 * 1024
    private let path: String
    private let pack: BlobPackReader
    private let writer: WriterConnection
    private let readers: [Slot]
    private let nextReader = Atomic<Int>(0)
    private let commits: GroupCommit<StagedRow>

    /// - Parameter directIO: whether the pack file is written with direct I/O (tests turn
    ///   it off to cover the page-cache path that file systems without it take).
    init(directory: String, directIO: Bool = true) {
        path = directory + "/" + Self.fileName
        readers = (0..<Self.readerCount).map { _ in Slot() }
        let packPath = directory + "/" + BlobPackAppender.fileName
        pack = BlobPackReader(path: packPath)
        let writer = WriterConnection(path: path, packPath: packPath, directIO: directIO)
        self.writer = writer
        commits = GroupCommit(label: "settee.small-blobs") { rows in
            try writer.transaction { db, pack in try Self.store(rows, in: db, pack: pack) }
        }
    }

    /// Writes the rows (and pack bytes) of the blobs in `rows` not stored yet.
    private static func store(_ rows: [StagedRow], in db: Connection, pack: BlobPackAppender) throws {
        var seen = Set<BlobKey>()
        let fresh = try rows.filter { row in
            guard seen.insert(row.key).inserted else { return false }
            return try !holds(row.key, in: db)
        }
        let packed = fresh.filter { $0.bytes.count >= packMinimum }
        for (row, offset) in zip(packed, try pack.append(packed.map(\.bytes))) {
            try db.run("INSERT INTO packed(digest, offset, length) VALUES (?, ?, ?)",
                       [.blob(row.key.md5), .integer(offset), .integer(Int64(row.bytes.count))])
        }
        for row in fresh where row.bytes.count < packMinimum {
            try db.run("INSERT INTO blobs(digest, data) VALUES (?, ?)", [.blob(row.key.md5)], borrowing: row.bytes)
        }
    }

    private static func holds(_ key: BlobKey, in db: Connection) throws -> Bool {
        try db.integer("SELECT (SELECT count(*) FROM packed WHERE digest = ?1) + (SELECT count(*) FROM blobs WHERE digest = ?1)",
                       [.blob(key.md5)]) ?? 0 > 0
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
        let found: Location? = try withReader { db -> Location? in
            var found: Location?
            try db.query("SELECT data FROM blobs WHERE digest = ?", [.blob(key.md5)]) { found = .row($0.blob(0) ?? []) }
            if found != nil { return found }
            try db.query("SELECT offset, length FROM packed WHERE digest = ?", [.blob(key.md5)]) { row in
                found = .packed(offset: row.int64(0), length: Int(row.int64(1)))
            }
            return found
        } ?? nil
        switch found {
        case .row(let bytes): return bytes
        case .packed(let offset, let length):
            let bytes = try pack.read(offset: offset, length: length)
            // Compaction punches a blob's bytes out only once its row's deletion committed:
            // if the row still names this offset after the read, the bytes were the blob's,
            // not the zeros of a hole punched meanwhile.
            guard try packedOffset(of: key) == offset else { return nil }
            return bytes
        case nil: return nil
        }
    }

    private func packedOffset(of key: BlobKey) throws -> Int64? {
        try withReader { db in try db.integer("SELECT offset FROM packed WHERE digest = ?", [.blob(key.md5)]) } ?? nil
    }

    /// Where a blob's bytes are.
    private enum Location {
        case row([UInt8])
        case packed(offset: Int64, length: Int)
    }

    func contains(_ key: BlobKey) throws -> Bool {
        try withReader { db in try Self.holds(key, in: db) } ?? false
    }

    func keys() throws -> [BlobKey] {
        try withReader { db in
            var keys: [BlobKey] = []
            try db.query("SELECT digest FROM blobs UNION ALL SELECT digest FROM packed") { row in
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
            // A file written before the pack file existed has no `packed` table.
            if try opened.integer("SELECT count(*) FROM sqlite_master WHERE name = 'packed'") ?? 0 == 0 {
                try opened.execute(Self.packedTable)
            }
            slot.connection = opened
        }
        return try slot.connection.map(work)
    }

    /// Deletes every blob not in `referenced` nor pinned (`BlobPins`: an upload's, whose
    /// revision has not committed yet) and gives the freed pages and pack bytes back to
    /// the file system. Returns how many were deleted.
    ///
    /// Holes are punched only once the deletions committed: a rollback must not bring
    /// back rows naming zeroed bytes. They are punched for every byte no row names, so
    /// that those of a write a crash interrupted go too.
    @discardableResult
    func sweep(keeping referenced: Set<BlobKey>, pins: BlobPins = BlobPins()) throws -> Int {
        guard access(path, F_OK) == 0 else { return 0 }
        let unreferenced = try keys().filter { !referenced.contains($0) }
        // The deletions commit under the pins' lock: an upload pinning one of these keys
        // meanwhile waits, then stores its bytes again (`store` finds no row). Freeing the
        // pages comes after, with the lock released.
        let deleted = try pins.removingUnpinned(unreferenced) { removable in
            guard !removable.isEmpty else { return 0 }
            try writer.transaction { db, _ in
                for key in removable {
                    try db.run("DELETE FROM blobs WHERE digest = ?", [.blob(key.md5)])
                    try db.run("DELETE FROM packed WHERE digest = ?", [.blob(key.md5)])
                }
            }
            return removable.count
        }
        if deleted > 0 { try writer.transaction { db, _ in try db.execute("PRAGMA incremental_vacuum") } }
        guard access(writer.packPath, F_OK) == 0 else { return deleted }
        try writer.withPack { db, pack in
            var kept: [(offset: Int64, length: Int64)] = []
            try db.query("SELECT offset, length FROM packed") { row in kept.append((row.int64(0), row.int64(1))) }
            try pack.punchHoles(keeping: kept)
        }
        return deleted
    }

    /// Closes the connections and the pack file; the next use opens what it needs again.
    func close() {
        writer.close()
        pack.close()
        for reader in readers {
            reader.lock.withLock {
                reader.connection?.close()
                reader.connection = nil
            }
        }
    }

    static let packedTable =
        "CREATE TABLE IF NOT EXISTS packed (digest BLOB PRIMARY KEY, offset INTEGER NOT NULL, length INTEGER NOT NULL) WITHOUT ROWID"

    /// The writing connection and the pack file's appender, opened (and the file made)
    /// by the first write.
    private final class WriterConnection: Sendable {
        let path: String
        let packPath: String
        let directIO: Bool
        private let opened = Mutex<(connection: Connection, pack: BlobPackAppender)?>(nil)

        init(path: String, packPath: String, directIO: Bool) {
            self.path = path
            self.packPath = packPath
            self.directIO = directIO
        }

        /// Runs `body` in one transaction: committed (durable) when this returns, else rolled back.
        func transaction(_ body: (Connection, BlobPackAppender) throws -> Void) throws {
            try withPack { db, pack in
                try db.run("BEGIN IMMEDIATE")
                do {
                    try body(db, pack)
                    try db.run("COMMIT")
                } catch {
                    try? db.run("ROLLBACK")
                    throw error
                }
            }
        }

        /// Runs `body` under the writer's lock, outside any transaction.
        func withPack(_ body: (Connection, BlobPackAppender) throws -> Void) throws {
            try opened.withLock { opened in
                let writer = try opened ?? (Self.open(path), BlobPackAppender(path: packPath, directIO: directIO))
                opened = writer
                try body(writer.connection, writer.pack)
            }
        }

        private static func open(_ path: String) throws -> Connection {
            let db = try Connection(path: path, newFileSettings: "PRAGMA page_size=32768; PRAGMA auto_vacuum=INCREMENTAL;")
            try db.execute("CREATE TABLE IF NOT EXISTS blobs (digest BLOB PRIMARY KEY, data BLOB NOT NULL)")
            try db.execute(SmallBlobFile.packedTable)
            return db
        }

        func close() {
            opened.withLock { opened in
                opened?.connection.close()
                opened?.pack.close()
                opened = nil
            }
        }
    }

    /// A reader connection and its lock.
    private final class Slot: @unchecked Sendable {
        // @unchecked: `connection` is touched only under `lock`.
        let lock = Lock()
        var connection: Connection?
    }
}
