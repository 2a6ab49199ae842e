internal import Dispatch
internal import Glibc

/*
 The program's own files an attachment is read from or written to, a piece at a time.
 `read`, `write`, `fsync` and `rename` block, so they run on a queue of their own, never on
 Swift's cooperative pool (STYLE.md rule 17). A file written here appears under its name
 only complete and synced: the bytes go to a temporary file beside it, which is fsync'd and
 renamed over the name (rename(2) is atomic), and removed if anything fails.
*/

/// One open file, used by one task at a time (each call awaited before the next).
final class AttachmentFile: @unchecked Sendable {
    // @unchecked: `fd` is only touched inside `AttachmentFile.run`, one call at a time.
    private static let queue = DispatchQueue(label: "settee.library.attachment-files", attributes: .concurrent)
    /// Bytes one read asks for: a piece in memory at a time, whatever the file's size.
    static let pieceSize = 256 * 1024

    private var fd: Int32
    let path: String
    /// The temporary file a written one is renamed from; nil for a file being read.
    private let temporaryPath: String?
    private var isCommitted = false

    private init(fd: Int32, path: String, temporaryPath: String?) {
        self.fd = fd
        self.path = path
        self.temporaryPath = temporaryPath
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let temporaryPath, !isCommitted { unlink(temporaryPath) }
    }

    private static func run<T: Sendable>(_ work: @escaping @Sendable () throws(SetteeError) -> T) async throws(SetteeError) -> T {
        let result: Result<T, SetteeError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(SetteeError) in try work() }) }
        }
        return try result.get()
    }

    /// Opens `path` for reading.
    /// - Throws: ``SetteeError/io(operation:path:errno:)``.
    static func reading(_ path: String) async throws(SetteeError) -> AttachmentFile {
        try await run { () throws(SetteeError) in
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
            return AttachmentFile(fd: fd, path: path, temporaryPath: nil)
        }
    }

    /// Creates a temporary file beside `path`, to become `path` at ``commit()``.
    static func writing(_ path: String) async throws(SetteeError) -> AttachmentFile {
        try await run { () throws(SetteeError) in
            let temporary = path + ".settee-\(UInt64.random(in: 0...UInt64.max))"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .io(operation: "create", path: temporary, errno: errno) }
            return AttachmentFile(fd: fd, path: path, temporaryPath: temporary)
        }
    }

    /// The next piece (at most ``pieceSize`` bytes), nil at the end of the file.
    func read() async throws(SetteeError) -> [UInt8]? {
        try await Self.run { [self] () throws(SetteeError) in
            var piece = [UInt8](repeating: 0, count: Self.pieceSize)
            while true {
                let count = piece.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw .io(operation: "read", path: path, errno: errno) }
                if count == 0 { return nil }
                piece.removeLast(piece.count - count)
                return piece
            }
        }
    }

    /// Appends `bytes`.
    func write(_ bytes: [UInt8]) async throws(SetteeError) {
        try await Self.run { [self] () throws(SetteeError) in
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw .io(operation: "write", path: temporaryPath ?? path, errno: errno) }
                offset += count
            }
        }
    }

    /// Syncs the written file and renames it to its name: it appears whole or not at all.
    func commit() async throws(SetteeError) {
        guard let temporaryPath else { return }
        try await Self.run { [self] () throws(SetteeError) in
            guard fsync(fd) == 0 else { throw .io(operation: "fsync", path: temporaryPath, errno: errno) }
            close(fd)
            fd = -1
            guard rename(temporaryPath, path) == 0 else { throw .io(operation: "rename", path: path, errno: errno) }
            isCommitted = true
        }
    }
}
