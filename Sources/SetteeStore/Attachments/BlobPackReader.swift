internal import Glibc
internal import Synchronization

/// Reads blobs back from a `SmallBlobFile`'s pack file (`BlobPackAppender`), through
/// the page cache. One descriptor, opened on first use, serves every thread: `pread`
/// takes its offset as an argument and shares no file position. `close` waits for no
/// read: the descriptor is closed by the last read still using it (an idle database's
/// close must never let a read `pread` a number reused by another file).
final class BlobPackReader: Sendable {
    private let path: String
    private let descriptor = Mutex<(fd: Int32, users: Int, mustClose: Bool)>((-1, 0, false))

    init(path: String) { self.path = path }

    deinit { close() }

    /// The `length` bytes at `offset`.
    /// - Throws: `StoreError.io`; `.attachmentMismatch` when the file ends first (a
    ///   row naming bytes that are not there).
    func read(offset: Int64, length: Int) throws -> [UInt8] {
        let fd = try acquire()
        defer { release() }
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

    /// Closes the descriptor now, or when the reads using it are done; a later read opens it again.
    func close() {
        descriptor.withLock { state in
            guard state.users == 0 else {
                state.mustClose = true
                return
            }
            if state.fd >= 0 { Glibc.close(state.fd) }
            state.fd = -1
        }
    }

    /// The open descriptor, counted as used until `release`.
    private func acquire() throws -> Int32 {
        try descriptor.withLock { state in
            if state.fd < 0 {
                state.fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard state.fd >= 0 else { throw StoreError.io(operation: "open", path: path, errno: errno) }
            }
            state.users += 1
            return state.fd
        }
    }

    private func release() {
        descriptor.withLock { state in
            state.users -= 1
            guard state.users == 0, state.mustClose else { return }
            Glibc.close(state.fd)
            state.fd = -1
            state.mustClose = false
        }
    }
}
