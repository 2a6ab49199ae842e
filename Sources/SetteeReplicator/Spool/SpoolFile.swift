internal import Glibc
internal import Dispatch
internal import Synchronization

/*
 SpoolFile: attachment bytes on their way through the replicator, on disk rather
 than in memory (issue 45 item 4: a 300 MB attachment held whole, in several
 copies, peaked at 956 MB RSS).

 The file is unlinked the moment it is created: only the descriptor names it, so
 the bytes go when the last reference does — after the write, on an error, on
 cancellation, and on `kill -9` too (the kernel frees an unlinked file with its
 last descriptor). A spool file can never be mistaken for an attachment: the store
 sees the bytes only through its own upload (`AttachmentUpload`), which checks and
 syncs them.

 Appends come from one writer at a time (the curl thread filling it, or one task);
 once filled, reads use pread(2) at an offset, so any number of readers (a PUT
 retried, curl rewinding) read the same bytes. Every call blocks on file I/O: from
 async code it runs through `SpoolIO` (STYLE 17).
 */

/// An unlinked temporary file holding one attachment's bytes.
final class SpoolFile: Sendable {
    private let fd: Int32
    /// Where the file was made, for error messages.
    let directory: String
    private let written = Atomic<Int64>(0)

    /// Creates the file in `directory` and unlinks it at once.
    /// - Throws: `ReplicationError.spoolFailed` when it cannot be created.
    init(directory: String) throws {
        self.directory = directory
        for _ in 0..<8 {
            let path = directory + "/.settee-replication-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let opened = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if opened >= 0 {
                unlink(path)
                fd = opened
                return
            }
            guard errno == EEXIST else {
                throw ReplicationError.spoolFailed(operation: "open", path: directory, errno: errno)
            }
        }
        throw ReplicationError.spoolFailed(operation: "open", path: directory, errno: EEXIST)
    }

    deinit { close(fd) }

    /// Bytes appended so far.
    var length: Int64 { written.load(ordering: .acquiring) }

    /// Appends `bytes` at the end.
    /// - Throws: `ReplicationError.spoolFailed` (a full disk: `ENOSPC`).
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var offset = written.load(ordering: .acquiring)
        var left = bytes.count
        while left > 0 {
            let n = pwrite(fd, base, left, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw ReplicationError.spoolFailed(operation: "write", path: directory, errno: errno)
            }
            base += n
            left -= n
            offset += Int64(n)
        }
        written.store(offset, ordering: .releasing)
    }

    /// Appends `bytes` at the end.
    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try append(raw) }
    }

    /// Reads up to `buffer.count` bytes at `offset` into `buffer`. - Returns: how many (0 at the end).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let wanted = Int(min(Int64(buffer.count), max(0, length - offset)))
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        while true {
            let n = pread(fd, base, wanted, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw ReplicationError.spoolFailed(operation: "read", path: directory, errno: errno) }
        }
    }

    /// Up to `maxLength` bytes at `offset`; empty at the end.
    func read(at offset: Int64, maxLength: Int) throws -> [UInt8] {
        let wanted = Int(min(Int64(maxLength), max(0, length - offset)))
        guard wanted > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: wanted)
        let n = try bytes.withUnsafeMutableBytes { raw in try read(at: offset, into: raw) }
        bytes.removeLast(wanted - n)
        return bytes
    }
}

/// Where a replication's spool files go: the data directory of the local store when
/// there is one (the same disk the attachments end up on), else `TMPDIR` or `/tmp`.
public struct SpoolDirectory: Sendable, Equatable {
    public let path: String

    public init(path: String) { self.path = path }

    /// `TMPDIR`, else `/tmp`.
    public static var temporary: SpoolDirectory {
        if let value = getenv("TMPDIR"), let text = String(validatingCString: value), !text.isEmpty {
            return SpoolDirectory(path: text)
        }
        return SpoolDirectory(path: "/tmp")
    }
}

/// Runs blocking spool I/O off Swift's cooperative pool (STYLE 17).
enum SpoolIO {
    private static let queue = DispatchQueue(label: "settee.replication-spool", attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
