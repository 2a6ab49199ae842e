internal import Glibc

/// One process at a time in a data directory: `settee serve` and a program that embeds
/// Settee both hold this lock while they have the directory open, so two writers never
/// share a database file (SQLite's own locks keep the file sound, but two processes
/// each with their own changes notifier, caches and blob sweeps would not be).
///
/// An exclusive `flock(2)` on `<directory>/.settee.lock`, taken without waiting. The
/// kernel drops it when the process exits, `kill -9` included, so a crash leaves no
/// stale lock behind. flock locks belong to the open file description: a second open
/// in the same process conflicts too.
public final class DataDirectoryLock: Sendable {
    /// The lock file's name under the data directory.
    public static let fileName = ".settee.lock"
    private let descriptor: Int32
    /// The lock file.
    public let path: String

    /// Takes the lock, creating the directory's lock file if needed.
    /// - Throws: `StoreError.directoryLocked` when another holder has it,
    ///   `StoreError.io` when the file cannot be opened.
    public init(directory: String) throws(StoreError) {
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw .directoryLocked(path: directory) }
            throw .io(operation: "flock", path: path, errno: code)
        }
        descriptor = fd
    }

    /// Releases the lock (closing the descriptor drops it).
    deinit { close(descriptor) }
}
