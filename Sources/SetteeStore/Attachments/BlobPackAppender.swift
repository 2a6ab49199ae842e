internal import CLinux
internal import Glibc
internal import Synchronization

/// Writes the pack file of a `SmallBlobFile` (`pack` in the blob directory): blobs of at
/// least `SmallBlobFile.packMinimum` bytes, appended end to end, each starting on a
/// block of `blockSize` bytes; `small.sqlite`'s `packed` table says where each one is,
/// and `BlobPackReader` reads them back.
///
/// Why: as rows of `small.sqlite`, a blob's bytes were written twice (into the WAL, then
/// into the database file at checkpoint), and each copy took page-cache memory that this
/// kind of VM charges for on first use (copying into fresh page-cache pages was 27 % of
/// a cold pull's samples). Here they are written once, with direct I/O (`O_DIRECT`) from
/// one reused buffer, and take no page cache: a pull of 1 GB of 100 KB attachments into
/// a fresh data directory went from 6.9–8.9 s to 5.3–5.8 s (bench/RESULTS.md, "A pack
/// file for attachments"). Where a file system refuses direct I/O, the same bytes are
/// written through the page cache. Reads always go through the page cache: the kernel
/// keeps it coherent with direct writes.
///
/// Durability: `append` returns once the bytes are on disk (`fdatasync`); only then do
/// the rows naming them commit (`SmallBlobFile`). Bytes a crash left without a row and
/// those of blobs compaction deleted read back as nothing and are given back to the file
/// system by `punchHoles(keeping:)`.
///
/// Not thread-safe: `SmallBlobFile` calls it under its writer's lock only.
final class BlobPackAppender {
    static let fileName = "pack"
    /// Every blob starts at a multiple of this: the alignment direct I/O asks of offsets,
    /// lengths and buffers, and the unit in which holes are punched.
    static let blockSize = 4096
    /// The staging buffer's size: direct I/O reads from aligned memory, which blob arrays
    /// are not.
    static let bufferSize = 1 << 20

    private let path: String
    private var fd: Int32 = -1
    /// Whether to ask for direct I/O (tests turn it off to cover the page-cache path).
    private let wantsDirect: Bool
    private var isDirect = false
    /// Where the next blob goes: the file's size, rounded up to a block.
    private var end: Int64 = 0
    /// The staging buffer during an `append`, from `StagingBuffer.take()`.
    private var buffer: UnsafeMutableRawPointer!
    private var buffered = 0

    init(path: String, directIO: Bool = true) {
        self.path = path
        wantsDirect = directIO
    }

    deinit { close() }

    /// Appends `blobs` and makes them durable; returns the offset of each.
    /// - Throws: `StoreError.io` (disk full: `ENOSPC`).
    func append(_ blobs: [[UInt8]]) throws -> [Int64] {
        try openIfNeeded()
        var offsets: [Int64] = []
        offsets.reserveCapacity(blobs.count)
        let start = end
        let staging = StagingBuffer.take()
        buffer = staging.pointer
        defer {
            buffer = nil
            StagingBuffer.give(staging)
        }
        do {
            for blob in blobs {
                offsets.append(end + Int64(buffered))
                try blob.withUnsafeBytes { try stage($0) }
                let padding = Self.paddedLength(buffered) - buffered
                if padding > 0 {
                    memset(buffer + buffered, 0, padding)
                    buffered += padding
                }
                if buffered == Self.bufferSize { try flush() }
            }
            try flush()
            guard fdatasync(fd) == 0 else { throw StoreError.io(operation: "fdatasync", path: path, errno: errno) }
        } catch {
            // No row names these bytes (the caller's transaction rolls back): the next
            // append writes over them.
            buffered = 0
            end = start
            throw error
        }
        return offsets
    }

    /// Frees the blocks of every byte of the file outside `kept` (offset, length pairs of
    /// the blobs that stay). Holes already punched cost little to punch again.
    /// - Throws: `StoreError.io`.
    func punchHoles(keeping kept: [(offset: Int64, length: Int64)]) throws {
        try openIfNeeded()
        var from: Int64 = 0
        for range in kept.sorted(by: { $0.offset < $1.offset }) {
            try punch(from, range.offset)
            from = max(from, range.offset + Int64(Self.paddedLength(Int(range.length))))
        }
        try punch(from, max(end, try Int64(Self.paddedLength(Int(size(of: fd))))))
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    static func paddedLength(_ length: Int) -> Int { (length + blockSize - 1) / blockSize * blockSize }

    private func punch(_ from: Int64, _ to: Int64) throws {
        guard to > from else { return }
        guard settee_punch_hole(fd, off_t(from), off_t(to - from)) == 0 else {
            // A file system without hole punching keeps the bytes: only space is lost.
            if errno == EOPNOTSUPP { return }
            throw StoreError.io(operation: "fallocate", path: path, errno: errno)
        }
    }

    private func openIfNeeded() throws {
        guard fd < 0 else { return }
        var opened: Int32 = -1
        if wantsDirect {
            opened = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | settee_o_direct(), 0o644)
            isDirect = opened >= 0
            guard opened >= 0 || errno == EINVAL else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        }
        if opened < 0 { opened = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
        guard opened >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        fd = opened
        end = Int64(Self.paddedLength(Int(try size(of: opened))))
    }

    private func size(of fd: Int32) throws -> off_t {
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else { throw StoreError.io(operation: "lseek", path: path, errno: errno) }
        return size
    }

    /// Copies `bytes` into the staging buffer, writing it out each time it fills.
    private func stage(_ bytes: UnsafeRawBufferPointer) throws {
        var from = 0
        while from < bytes.count {
            let count = min(bytes.count - from, Self.bufferSize - buffered)
            memcpy(buffer + buffered, bytes.baseAddress! + from, count)
            buffered += count
            from += count
            if buffered == Self.bufferSize { try flush() }
        }
    }

    /// Writes the staged bytes (whole blocks: every blob is padded to one) at `end`.
    private func flush() throws {
        var written = 0
        while written < buffered {
            let result = pwrite(fd, buffer + written, buffered - written, off_t(end) + off_t(written))
            if result < 0 && errno == EINTR { continue }
            if result < 0 && errno == EINVAL && isDirect {
                // The file system takes O_DIRECT at open but not at this alignment:
                // write through the page cache from now on.
                try reopenBuffered()
                continue
            }
            guard result > 0 else { throw StoreError.io(operation: "pwrite", path: path, errno: result < 0 ? errno : ENOSPC) }
            written += result
        }
        end += Int64(buffered)
        buffered = 0
    }

    private func reopenBuffered() throws {
        let opened = Glibc.open(path, O_WRONLY | O_CLOEXEC)
        guard opened >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
        Glibc.close(fd)
        fd = opened
        isDirect = false
    }
}

/// A staging buffer for `BlobPackAppender`, aligned for direct I/O. Every pack file of
/// the process draws from one pool and holds a buffer only while it appends, with at most
/// `spareLimit` kept idle: a server with a thousand databases does not keep a megabyte
/// for each, and a kept buffer's pages are already the process's, so reusing it costs no
/// page faults.
private final class StagingBuffer: @unchecked Sendable {
    // @unchecked: the memory is used by one appender at a time (`take`/`give`).
    static let spareLimit = 4
    private static let spares = Mutex<[StagingBuffer]>([])
    let pointer: UnsafeMutableRawPointer

    private init() {
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, BlobPackAppender.blockSize, BlobPackAppender.bufferSize) == 0, let memory else {
            fatalError("posix_memalign of \(BlobPackAppender.bufferSize) bytes failed")
        }
        pointer = memory
    }

    deinit { free(pointer) }

    static func take() -> StagingBuffer { spares.withLock { $0.popLast() } ?? StagingBuffer() }

    static func give(_ buffer: StagingBuffer) {
        spares.withLock { spares in
            if spares.count < spareLimit { spares.append(buffer) }
        }
    }
}
