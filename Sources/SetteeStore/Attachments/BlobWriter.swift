internal import CLinux
internal import Crypto
internal import Glibc

/// What `BlobWriter.finish()` stored: the key (= digest) and the byte count, and the
/// pin that keeps a compaction sweep off the blob until the revision naming it commits.
struct StoredBlob: Sendable, Hashable {
    let key: BlobKey
    let length: Int64
    /// Held by the upload (`BlobPins`); not part of the value.
    let pin: BlobPin?
    /// CouchDB's `digest` for the attachment, `md5-<base64>`.
    var digest: String { key.couchDigest }

    init(key: BlobKey, length: Int64, pin: BlobPin? = nil) {
        self.key = key
        self.length = length
        self.pin = pin
    }

    static func == (lhs: StoredBlob, rhs: StoredBlob) -> Bool { lhs.key == rhs.key && lhs.length == rhs.length }
    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(length)
    }
}

/// Streams one blob into a temporary file of its `BlobStore`, hashing as it goes.
///
/// Life cycle: `write` any number of times, then exactly one of `finish` (the blob
/// becomes visible under its key, durably) or `abort` (the temp file is removed).
/// A writer dropped without either removes its temp file too; one left behind by a
/// crash is removed by `BlobStore.sweepTemporaryFiles()`.
///
/// All calls block on file I/O: run them off the cooperative pool (STYLE 17).
final class BlobWriter {
    private let store: BlobStore
    private let tempPath: String
    private var fd: Int32
    private var hasher = Insecure.MD5()
    private var length: Int64 = 0
    private var isDone = false
    /// Where the bytes not yet handed to writeback begin (`startWriteback`).
    private var writebackFrom: Int64 = 0

    init(store: BlobStore, tempPath: String, fd: Int32) {
        self.store = store
        self.tempPath = tempPath
        self.fd = fd
    }

    deinit { if !isDone { discard() } }

    /// The number of bytes written so far.
    var bytesWritten: Int64 { length }

    /// Appends `bytes` to the blob.
    /// - Throws: `StoreError.io` when the write fails (disk full: `ENOSPC`).
    func write(_ bytes: some Collection<UInt8>) throws {
        precondition(!isDone, "BlobWriter.write after finish/abort")
        let written: Void? = try bytes.withContiguousStorageIfAvailable { try writeAll(UnsafeRawBufferPointer($0)) }
        if written == nil { try Array(bytes).withUnsafeBytes { try writeAll($0) } }
        length += Int64(bytes.count)
        if length - writebackFrom >= Self.writebackChunk { startWriteback() }
    }

    /// Bytes written between two `startWriteback` calls.
    static let writebackChunk: Int64 = 4 << 20

    /// Asks the kernel to start writing the bytes written since the last call, without
    /// waiting, so that `finish`'s fsync finds most of a large blob on disk already:
    /// that fsync took 160 ms of a 100 MB upload's 0.36 s here, and starting writeback
    /// as the bytes come raised the upload from 279–298 to 293–327 MB/s
    /// (bench/RESULTS.md). Only a hint: a failure changes nothing, the fsync still decides.
    private func startWriteback() {
        _ = settee_start_writeback(fd, off_t(writebackFrom), off_t(length - writebackFrom))
        writebackFrom = length
    }

    /// Makes the blob durable under its key and returns it.
    ///
    /// Order matters for crash safety: fsync the file, rename it to its key (atomic,
    /// POSIX `rename(2)`), then fsync the directory so the new name itself survives a
    /// power loss. If a blob with the same key exists the bytes are identical (same
    /// MD5) and the temp file is simply dropped.
    /// - Parameters:
    ///   - expectedDigest: when given (a replicated attachment's `digest`), a
    ///     mismatch throws and nothing is stored.
    ///   - expectedLength: likewise for the declared `length`/`encoded_length`.
    /// - Throws: `StoreError.attachmentMismatch` or `StoreError.io`.
    func finish(expectedDigest: BlobKey? = nil, expectedLength: Int64? = nil) throws -> StoredBlob {
        precondition(!isDone, "BlobWriter.finish called twice")
        guard let key = BlobKey(md5: Array(hasher.finalize())) else {
            preconditionFailure("MD5 is 16 bytes")
        }
        if let expectedLength, expectedLength != length {
            discard()
            throw StoreError.attachmentMismatch("expected \(expectedLength) bytes, received \(length)")
        }
        if let expectedDigest, expectedDigest != key {
            discard()
            throw StoreError.attachmentMismatch("digest \(key.couchDigest) does not match \(expectedDigest.couchDigest)")
        }
        // Pinned before the dedupe check and the rename: a compaction sweep either removed
        // an unreferenced blob with this key before (so `install` puts this one in its
        // place) or keeps it until the revision naming it commits (`BlobPins`).
        let pin = store.pins.pin(key)
        do {
            try sync()
            try install(as: store.path(for: key))
        } catch {
            discard()
            throw error
        }
        return StoredBlob(key: key, length: length, pin: pin)
    }

    /// Drops the blob: closes and removes the temp file. Safe to call more than once.
    func abort() {
        if !isDone { discard() }
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) throws {
        hasher.update(bufferPointer: raw)
        guard var base = raw.baseAddress else { return }
        var left = raw.count
        while left > 0 {
            let n = Glibc.write(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError.io(operation: "write", path: tempPath, errno: errno)
            }
            base += n
            left -= n
        }
    }

    private func sync() throws {
        guard fsync(fd) == 0 else { throw StoreError.io(operation: "fsync", path: tempPath, errno: errno) }
        let rc = close(fd)
        fd = -1
        guard rc == 0 else { throw StoreError.io(operation: "close", path: tempPath, errno: errno) }
    }

    private func install(as finalPath: String) throws {
        if access(finalPath, F_OK) == 0 {
            // Dedupe: same MD5, same bytes. Keep the existing (already synced) file.
            discard()
            return
        }
        guard rename(tempPath, finalPath) == 0 else {
            throw StoreError.io(operation: "rename", path: finalPath, errno: errno)
        }
        isDone = true
        try store.syncDirectory()
    }

    private func discard() {
        if fd >= 0 { close(fd); fd = -1 }
        unlink(tempPath)
        isDone = true
    }
}

@available(*, unavailable)
extension BlobWriter: Sendable {}
