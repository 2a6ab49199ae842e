internal import Glibc
internal import Logging
internal import Synchronization

/// Why a database was found damaged. While a database carries one it is read-only:
/// reads serve what is left (so it can be copied out), every write fails with
/// `StoreError.databaseDamaged`, `GET /{db}` shows the reason, and `settee check
/// --repair` clears it once what can be rebuilt is rebuilt and what is lost is reported.
public struct DatabaseDamage: Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }

    /// The open check: the update sequence SQLite reports against the one last recorded
    /// after a commit (`CommittedSequenceFile`). Lower means committed transactions are
    /// gone: the WAL (or the file) lost them, and documents whose writes were answered
    /// 2xx would now answer 404. Nil when nothing is recorded (an older database).
    static func check(updateSequence: Int64, recorded: Int64?, recordPath: String) -> DatabaseDamage? {
        guard let recorded, recorded > updateSequence else { return nil }
        return DatabaseDamage(reason: "update sequence \(updateSequence) is behind \(recorded), the last one committed "
            + "(\(recordPath)): \(recorded - updateSequence) committed updates are missing, likely a damaged -wal file; "
            + "the database is read-only until `settee check --repair`")
    }
}

extension DatabaseDamage {
    /// A write the disk failed (EIO from write or fsync): what the file holds can no longer
    /// be trusted to match what was written, so the database is not written again (no retry:
    /// after a failed fsync the kernel may have dropped the dirty pages and reported the
    /// error once, https://wiki.postgresql.org/wiki/Fsync_Errors). The write itself was
    /// refused: nothing that failed was acknowledged.
    static func ioFailure(_ error: StoreError) -> DatabaseDamage {
        DatabaseDamage(reason: "a write to the disk failed (\(error)); the disk may be failing, "
            + "the database is read-only until `settee check --repair`")
    }
}

/// A database's damage, once found (at open, or by a read meeting a malformed record).
final class DamageState: Sendable {
    private let found = Mutex<DatabaseDamage?>(nil)
    private let database: String
    private let databasePath: String
    private let logger: Logger

    init(database: String, databasePath: String, logger: Logger) {
        (self.database, self.databasePath, self.logger) = (database, databasePath, logger)
    }

    var current: DatabaseDamage? { found.withLock { $0 } }

    /// Records `damage` (and logs it) unless some is recorded already. - Returns: whether it is new.
    @discardableResult
    func mark(_ damage: DatabaseDamage) -> Bool {
        found.withLock { current in
            guard current == nil else { return false }
            current = damage
            DamageMarker.write(damage, databasePath: databasePath)
            logger.error("database \(database) damaged, now read-only: \(damage.reason)", metadata: ["db": .string(database)])
            return true
        }
    }
}

/// The damage mark beside a database file (`<file>.damaged`, the reason as text): a
/// database found damaged stays read-only across restarts until `settee check --repair`
/// removes the mark.
enum DamageMarker {
    static let suffix = ".damaged"

    static func read(databasePath: String) -> DatabaseDamage? {
        let fd = open(databasePath + suffix, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = max(0, buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) })
        let reason = String(decoding: buffer[0..<count], as: UTF8.self)
        return DatabaseDamage(reason: reason.isEmpty ? "marked damaged (\(databasePath + suffix))" : reason)
    }

    /// Writes the mark (synced: it is rare, and must outlive a crash). Failing to write it
    /// leaves the damage known to this run only.
    static func write(_ damage: DatabaseDamage, databasePath: String) {
        let fd = open(databasePath + suffix, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(damage.reason.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        _ = fsync(fd)
    }

    static func remove(databasePath: String) { _ = unlink(databasePath + suffix) }
}
