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

/// A database's damage, once found (at open, or by a read meeting a malformed record).
final class DamageState: Sendable {
    private let found = Mutex<DatabaseDamage?>(nil)
    private let database: String
    private let logger: Logger

    init(database: String, logger: Logger) { (self.database, self.logger) = (database, logger) }

    var current: DatabaseDamage? { found.withLock { $0 } }

    /// Records `damage` (and logs it) unless some is recorded already. - Returns: whether it is new.
    @discardableResult
    func mark(_ damage: DatabaseDamage) -> Bool {
        found.withLock { current in
            guard current == nil else { return false }
            current = damage
            logger.error("database \(database) damaged, now read-only: \(damage.reason)", metadata: ["db": .string(database)])
            return true
        }
    }
}
