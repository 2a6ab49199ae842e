internal import Glibc
internal import Synchronization

/// Reads blobs back from a `SmallBlobFile`'s pack file (`BlobPackAppender`), through
/// the page cache. One descriptor, opened on first use, serves every thread: `pread`
/// takes its offset as an argument and shares no file position.
final class BlobPackReader: Sendable {
    private let path: String
    private let descriptor = Mutex<Int32>(-1)

    init(path: String) { self.path = path }

    deinit { close() }

    /// The `length` bytes at `offset`.
    /// - Throws: `StoreError.io`; `.attachmentMismatch` when the file ends first (a
    ///   row naming bytes that are not there).
    func read(offset: Int64, length: Int) throws -> [UInt8] {
        let fd = try openIfNeeded()
        return try [UInt8](unsafeUninitializedCapacity: length) { bytes, count in
            while count < length {
                let result = pread(fd, bytes.baseAddress! + count, length - count, off_t(offset) + off_t(count))
                if result < 0 && errno == EINTR { continue }
                guard result >= 0 else { throw StoreError.io(operation: "pread", path: path, errno: errno) }
                guard result > 0 else { throw StoreError.attachmentMismatch("pack file \(path) ends before byte \(offset + Int64(length))") }
                count += result
            }
        }
    }

    func close() {
        descriptor.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }

    private func openIfNeeded() throws -> Int32 {
        try descriptor.withLock { fd in
            if fd < 0 {
                fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
            }
            return fd
        }
    }
}
