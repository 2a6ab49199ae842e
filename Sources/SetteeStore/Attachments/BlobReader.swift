internal import Glibc

/// Reads one blob, or a byte range of it, in chunks (for streaming responses).
///
/// Reads use `pread(2)` at an explicit offset, so a blob that compaction unlinks
/// while it is being read stays readable until the reader closes (POSIX keeps an
/// open file's data). Blocking I/O: run off the cooperative pool.
final class BlobReader {
    /// The blob being read.
    let key: BlobKey
    /// The whole blob's size.
    let blobLength: Int64
    /// The bytes this reader returns (the requested range, or the whole blob).
    let range: Range<Int64>
    /// The file read, for `VerifiedBlobFiles`.
    let identity: FileIdentity
    private let path: String
    private var fd: Int32
    private var offset: Int64

    init(path: String, key: BlobKey, range: Range<Int64>?) throws {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw StoreError.attachmentNotFound(key.couchDigest) }
            throw StoreError.io(operation: "open", path: path, errno: errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw StoreError.io(operation: "fstat", path: path, errno: error)
        }
        let length = Int64(info.st_size)
        let wanted = range ?? 0..<length
        guard wanted.lowerBound >= 0, wanted.upperBound <= length else {
            Glibc.close(fd)
            throw StoreError.attachmentMismatch("range \(wanted) outside blob of \(length) bytes")
        }
        (self.path, self.key, self.fd, self.blobLength, self.range, self.offset) =
            (path, key, fd, length, wanted, wanted.lowerBound)
        identity = FileIdentity(key: key, stat: info)
    }

    deinit { close() }

    /// Bytes not yet returned.
    var remaining: Int64 { range.upperBound - offset }

    /// The next piece (at most `maxLength` bytes), or nil at the end of the range.
    /// - Throws: `StoreError.io` on a read error or when the file shrank underneath.
    func read(maxLength: Int) throws -> [UInt8]? {
        precondition(maxLength > 0, "BlobReader.read needs room")
        precondition(fd >= 0, "BlobReader.read after close")
        let count = Int(min(Int64(maxLength), remaining))
        guard count > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + filled }, count - filled, off_t(offset) + off_t(filled))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StoreError.io(operation: "pread", path: path, errno: n == 0 ? EIO : errno) }
            filled += n
        }
        offset += Int64(count)
        return buffer
    }

    /// Releases the file descriptor; later `read` calls are programmer errors.
    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}

@available(*, unavailable)
extension BlobReader: Sendable {}
