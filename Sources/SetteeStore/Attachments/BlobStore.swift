internal import Glibc

/// A blob's key is its digest: the store is content-addressed.
typealias BlobKey = AttachmentDigest

/// A content-addressed store of attachment bytes in one directory, one per database
/// (`<database file>.blobs/`, see `directory(forDatabaseFile:)`).
///
/// Layout: small blobs are rows of `small.sqlite` (`SmallBlobFile`), written in batches
/// by `storeSmall`; every other blob is a file named by the lower-case hex MD5 of its
/// bytes; in-progress writes are `tmp-<random>` files in the same directory (so the
/// final `rename(2)` never crosses file systems and is atomic). Reads, `contains`,
/// `keys` and `sweep` see both kinds.
///
/// Durability (DESIGN "Storage principles"): a blob is written and synced before the
/// revision naming it commits, so a committed revision never names a missing blob.
/// A crash can leave temp files (swept at start-up) and unreferenced blobs (swept at
/// compaction) but never a half-written blob under a key.
///
/// Concurrency: the type holds no mutable state and is `Sendable`; distinct writers
/// may run at once. Every method does blocking POSIX I/O, so callers run it off the
/// cooperative pool (a database's serial I/O queue), never on an async executor.
/// `sweep(keeping:)` runs under the database's single writer, between transactions, and
/// keeps what `pins` holds: the blobs of uploads whose revisions have not committed yet.
final class BlobStore: Sendable {
    /// The directory holding the blobs.
    let directory: String
    static let temporaryPrefix = "tmp-"
    /// The small blobs.
    private let small: SmallBlobFile
    /// Blob files read whole and found intact (ranges of them need no second reading).
    private let verifiedFiles = VerifiedBlobFiles()
    /// Blobs that uploads stored and that no revision may name yet: never swept.
    let pins = BlobPins()

    /// The blob directory of the database stored in `path`: `path + ".blobs"`.
    static func directory(forDatabaseFile path: String) -> String { path + ".blobs" }

    /// Opens the store in `directory`, creating the directory if needed.
    /// - Throws: `StoreError.io` when it cannot be created.
    init(directory: String) throws {
        self.directory = directory
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw StoreError.io(operation: "mkdir", path: directory, errno: errno)
        }
        small = SmallBlobFile(directory: directory)
    }

    /// Stores small blobs (`AttachmentUpload`'s staged bytes) in one transaction (shared
    /// with other stores that arrive meanwhile), durable when this returns.
    /// - Throws: `StoreError.sqlite`.
    func storeSmall(_ blobs: [(key: BlobKey, bytes: [UInt8])]) async throws {
        try await small.insert(blobs)
    }

    /// Closes the small blobs' file (the database is being closed or deleted).
    func close() { small.close() }

    /// Closes the small blobs' file for an idle database; the next blob read or write opens it again.
    func closeWhenIdle() { small.close() }

    /// Starts a new blob. Write bytes to it, then `finish()` or `abort()`.
    /// - Throws: `StoreError.io` when the temp file cannot be created.
    func makeWriter() throws -> BlobWriter {
        for _ in 0..<8 {
            let name = Self.temporaryPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let path = directory + "/" + name
            let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { return BlobWriter(store: self, tempPath: path, fd: fd) }
            guard errno == EEXIST else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        }
        throw StoreError.io(operation: "open", path: directory, errno: EEXIST)
    }

    /// Stores `bytes` in one go (small attachments, tests).
    /// - Throws: `StoreError.io`.
    func write(_ bytes: [UInt8]) throws -> StoredBlob {
        let writer = try makeWriter()
        try writer.write(bytes)
        return try writer.finish()
    }

    /// Whether the blob `key` is stored. A small blob that cannot be read counts as
    /// missing: a write naming it is refused rather than left dangling.
    func contains(_ key: BlobKey) -> Bool {
        (try? small.contains(key)) == true || access(path(for: key), F_OK) == 0
    }

    /// The stored size of blob file `key`, or nil when there is no such file.
    /// - Throws: `StoreError.io` for errors other than "no such file".
    func length(of key: BlobKey) throws -> Int64? {
        var info = stat()
        guard stat(path(for: key), &info) == 0 else {
            if errno == ENOENT { return nil }
            throw StoreError.io(operation: "stat", path: path(for: key), errno: errno)
        }
        return Int64(info.st_size)
    }

    /// Opens `key` for reading, optionally only the bytes in `range` (HTTP `Range`,
    /// RFC 9110 §14; the caller has already answered 416 for unsatisfiable ranges).
    ///
    /// Every read is checked against the key, the MD5 of the stored bytes
    /// (`BlobVerification`): a small blob, read whole, before this returns; a whole blob
    /// file as it is read (its last read throws instead of ending); a range of a blob file
    /// up to `BlobVerification.rangeCheckLimit`, by reading the whole file once first
    /// (remembered in `verifiedFiles`).
    /// - Throws: `StoreError.attachmentNotFound` when the blob is missing,
    ///   `.attachmentDamaged` when its bytes are not the key's, `.io` otherwise, and
    ///   `.attachmentMismatch` for a range past the end.
    func open(_ key: BlobKey, range: Range<Int64>? = nil) throws -> any StoredBytesReader {
        if let bytes = try small.read(key) {
            let location = directory + "/" + SmallBlobFile.fileName + " (or its pack file)"
            try BlobVerification.check(bytes, against: key, location: location)
            return try SmallBlobReader(bytes, range: range)
        }
        let reader = try BlobReader(path: path(for: key), key: key, range: range)
        let identity = reader.identity
        guard range == nil else {
            try checkWhole(identity, of: key)
            return reader
        }
        return VerifyingReader(reader, key: key, location: path(for: key)) { [verifiedFiles] in
            verifiedFiles.insert(identity)
        }
    }

    /// Reads blob file `key` whole once, unless it was already or is too large to wait for.
    private func checkWhole(_ identity: FileIdentity, of key: BlobKey) throws {
        guard identity.size <= BlobVerification.rangeCheckLimit, !verifiedFiles.contains(identity) else { return }
        let whole = try open(key)
        defer { whole.close() }
        while try whole.read(maxLength: 256 * 1024) != nil {}
    }

    /// Reads all of `key` into memory (small attachments, tests).
    /// - Throws: as `open(_:range:)`.
    func read(_ key: BlobKey) throws -> [UInt8] {
        let reader = try open(key)
        var all: [UInt8] = []
        while let piece = try reader.read() { all += piece }
        return all
    }

    /// Deletes blob file `key`; does nothing when it is absent.
    /// - Throws: `StoreError.io` for errors other than "no such file".
    func remove(_ key: BlobKey) throws {
        guard unlink(path(for: key)) == 0 || errno == ENOENT else {
            throw StoreError.io(operation: "unlink", path: path(for: key), errno: errno)
        }
    }

    /// Every stored blob's key, small or a file (temp files and foreign files are skipped), sorted.
    /// - Throws: `StoreError.io` when the directory cannot be read, `.sqlite`.
    func keys() throws -> [BlobKey] {
        Set(try entries().compactMap(BlobKey.init(hex:))).union(try small.keys()).sorted()
    }

    /// Deletes temp files left by writes that never finished (a crash, `kill -9`).
    /// Call at start-up only, before any writer exists: it would delete a live
    /// writer's temp file. Returns how many were removed.
    /// - Throws: `StoreError.io`.
    @discardableResult
    func sweepTemporaryFiles() throws -> Int {
        try removeEntries { $0.hasPrefix(Self.temporaryPrefix) }
    }

    /// Deletes every blob not in `referenced` (compaction: the keys named by the
    /// revisions that keep their bodies) and not pinned by an upload (`pins`), small ones
    /// and files. Temp files are left alone. Returns how many blobs were removed.
    /// - Throws: `StoreError.io`, `.sqlite`.
    @discardableResult
    func sweep(keeping referenced: Set<BlobKey>) throws -> Int {
        let smallOnes = try small.sweep(keeping: referenced, pins: pins)
        let files = try entries().compactMap { name -> BlobKey? in
            guard let key = BlobKey(hex: name), key.hex == name, !referenced.contains(key) else { return nil }
            return key
        }
        let removed = try pins.removingUnpinned(files) { removable in
            for key in removable { try remove(key) }
            return removable.count
        }
        if removed > 0 { try syncDirectory() }
        return smallOnes + removed
    }

    func path(for key: BlobKey) -> String { directory + "/" + key.hex }

    /// fsync on the directory makes renames and unlinks in it durable (fsync(2):
    /// "an explicit fsync() on a file descriptor for the directory is also needed").
    func syncDirectory() throws {
        let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io(operation: "open", path: directory, errno: errno) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "fsync", path: directory, errno: errno) }
    }

    private func removeEntries(where shouldRemove: (String) -> Bool) throws -> Int {
        var removed = 0
        for name in try entries() where shouldRemove(name) {
            let path = directory + "/" + name
            guard unlink(path) == 0 || errno == ENOENT else {
                throw StoreError.io(operation: "unlink", path: path, errno: errno)
            }
            removed += 1
        }
        if removed > 0 { try syncDirectory() }
        return removed
    }

    private func entries() throws -> [String] {
        guard let dir = opendir(directory) else {
            throw StoreError.io(operation: "opendir", path: directory, errno: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
