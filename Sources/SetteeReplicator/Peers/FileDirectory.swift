internal import FoundationEssentials
internal import Glibc
public import Logging
public import SetteeStore
internal import Synchronization

/// A data directory opened for `file://` endpoints (`FileEndpoint`): its databases, the
/// directory's lock, and its uuid. Replications in this process that name the same
/// directory share one open (`open(_:)`): the lock is an `flock`, which a second open in
/// the same process would be refused. When the last peer using it is gone, its databases
/// are closed (SQLite then checkpoints each WAL into its file, so the stick carries one
/// file per database) and the lock is released, so the stick can be unmounted.
public final class FileDirectory: Sendable {
    /// The file a data directory's generated server uuid is kept in: the same file
    /// `settee serve` reads (SetteeConfig's `NodeSetup.uuidFileName`), so a data directory
    /// named by URL keeps the identity its server replicates under.
    public static let uuidFileName = ".uuid"

    /// The directory, as the endpoint named it.
    public let path: String
    /// Its databases, opened with the store's defaults (no server's configuration applies).
    public let databases: DatabaseDirectory
    /// Half of each of its databases' replication identity (`ReplicationID`).
    public let uuid: String
    private let lock: DataDirectoryLock

    private init(path: String, logger: Logger) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            lock = try DataDirectoryLock(directory: path)
        } catch StoreError.directoryLocked {
            throw ReplicationError.directoryInUse(path)
        } catch {
            throw ReplicationError.unreachable(peer: "file://" + path, cause: "\(error)")
        }
        databases = try DatabaseDirectory(configuration: StoreConfiguration(path: path), logger: logger)
        uuid = try Self.resolveUUID(in: path)
        self.path = path
    }

    deinit { databases.closeAll() }

    /// The directory's uuid, generated and written on first use (as `settee serve` does).
    private static func resolveUUID(in directory: String) throws -> String {
        let path = directory + "/" + uuidFileName
        if let stored = try? String(contentsOfFile: path, encoding: .utf8) {
            let trimmed = stored.filter { !$0.isWhitespace }
            if !trimmed.isEmpty { return trimmed }
        }
        let uuid = UUID().uuidString.replacing("-", with: "").lowercased()
        do {
            try Data((uuid + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ReplicationError.unreachable(peer: "file://" + directory, cause: "cannot write \(path): \(error)")
        }
        return uuid
    }

    /// Whether `path` is a directory.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether two paths name one existing directory (symbolic links and `..` resolved).
    public static func isSame(_ first: String, _ second: String) -> Bool {
        guard let one = realpath(first, nil) else { return false }
        defer { free(one) }
        guard let other = realpath(second, nil) else { return false }
        defer { free(other) }
        return strcmp(one, other) == 0
    }

    /// Opened directories by path, held weakly: the peers hold them.
    private static let opened = Mutex<[String: WeakReference]>([:])

    private struct WeakReference { weak var directory: FileDirectory? }

    /// The directory at `path`, opened now or shared with a replication that has it open.
    /// - Throws: `ReplicationError.directoryInUse` when another process holds its lock
    ///   (a running `settee serve`); `.unreachable` when it cannot be made or read.
    public static func open(_ path: String, logger: Logger) throws -> FileDirectory {
        try opened.withLock { table in
            if let directory = table[path]?.directory { return directory }
            let directory = try FileDirectory(path: path, logger: logger)
            table = table.filter { $0.value.directory != nil }
            table[path] = WeakReference(directory: directory)
            return directory
        }
    }
}
