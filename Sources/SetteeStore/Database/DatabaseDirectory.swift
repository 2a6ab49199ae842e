public import Logging
internal import Glibc
internal import FoundationEssentials

/// Where databases live: one SQLite file per database (and its blobs) under
/// `path`. Opens each database once and hands out the same `Database`.
///
/// File names: `<encoded name>.couch`, see `DatabaseFileName`.
public final class DatabaseDirectory: Sendable {
    public let configuration: StoreConfiguration
    private let logger: Logger
    private let open = OpenDatabases()
    /// `_db_updates`: every database created, updated or deleted here, recorded
    /// where it happens (whatever asked for it: HTTP, a replication, a purge).
    public let updates = DatabaseUpdates()
    /// Compactions and index builds running in any of the databases.
    public let tasks = StoreTasks()

    /// Opens (creating if needed) the directory at `configuration.path`.
    /// - Throws: `StoreError.io` when it cannot be created.
    public init(configuration: StoreConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        do {
            try FileManager.default.createDirectory(atPath: configuration.path, withIntermediateDirectories: true)
        } catch {
            throw StoreError.io(operation: "mkdir", path: configuration.path, errno: errno)
        }
    }

    /// Every database name, in byte order.
    public func names() throws -> [String] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: configuration.path)
        } catch {
            throw StoreError.io(operation: "readdir", path: configuration.path, errno: errno)
        }
        return entries.compactMap(DatabaseFileName.name(fromFile:))
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The open database `name`, or nil when it does not exist.
    public func database(named name: String) throws -> Database? {
        try open.withLock { databases in
            if let database = databases[name] { return database }
            guard Self.isValidName(name), FileManager.default.fileExists(atPath: filePath(name)) else { return nil }
            let database = try Database(name: name, path: filePath(name), configuration: configuration, events: updates,
                                        tasks: tasks, logger: logger)
            databases[name] = database
            return database
        }
    }

    /// Creates database `name`.
    /// - Throws: `.invalidDatabaseName`, `.databaseExists`.
    public func create(_ name: String) throws -> Database {
        guard Self.isValidName(name) else { throw StoreError.invalidDatabaseName(name) }
        return try open.withLock { databases in
            guard databases[name] == nil, !FileManager.default.fileExists(atPath: filePath(name)) else {
                throw StoreError.databaseExists(name)
            }
            // A sequence or damage mark left by a deleted database of this name is not this one's.
            CommittedSequenceFile.remove(databasePath: filePath(name))
            DamageMarker.remove(databasePath: filePath(name))
            let database: Database
            do {
                database = try Database(name: name, path: filePath(name), configuration: configuration, events: updates,
                                        tasks: tasks, logger: logger)
            } catch {
                // A create that failed half way (a full disk) leaves no file that a later
                // request would take for the database.
                removeFiles(of: filePath(name))
                throw error
            }
            databases[name] = database
            logger.info("created database", metadata: ["db": .string(name)])
            updates.record(.created, databaseName: name)
            return database
        }
    }

    /// Deletes database `name` and its files.
    /// - Throws: `.databaseNotFound`.
    public func delete(_ name: String) throws {
        try open.withLock { databases in
            let path = filePath(name)
            guard Self.isValidName(name), FileManager.default.fileExists(atPath: path) else {
                throw StoreError.databaseNotFound(name)
            }
            databases.removeValue(forKey: name)?.close()
            for file in [path, path + "-wal", path + "-shm", path + CommittedSequenceFile.suffix,
                         path + DamageMarker.suffix] where FileManager.default.fileExists(atPath: file) {
                guard unlink(file) == 0 else { throw StoreError.io(operation: "unlink", path: file, errno: errno) }
            }
            // The blobs go with the database; a leftover directory would be reused by a new one.
            let blobs = BlobStore.directory(forDatabaseFile: path)
            if FileManager.default.fileExists(atPath: blobs) { try? FileManager.default.removeItem(atPath: blobs) }
            tasks.forgetFailures(database: name)
            logger.info("deleted database", metadata: ["db": .string(name)])
            updates.record(.deleted, databaseName: name)
        }
    }

    /// Closes every open database, after the work queued on it; the last connection
    /// to a file checkpoints its WAL into it and removes `-wal` and `-shm`
    /// (https://sqlite.org/wal.html), so a stopped server leaves one file per database.
    /// A database asked for afterwards is opened again.
    /// How many databases are open now (`_stats` `couchdb.open_databases`).
    public var openCount: Int { open.withLock { $0.count } }

    public func closeAll() {
        open.withLock { databases in
            for database in databases.values { database.close() }
            databases.removeAll()
        }
    }

    /// Removes what a database file at `path` may have beside it, best effort.
    private func removeFiles(of path: String) {
        for file in [path, path + "-wal", path + "-shm", path + CommittedSequenceFile.suffix, path + DamageMarker.suffix] {
            unlink(file)
        }
        try? FileManager.default.removeItem(atPath: BlobStore.directory(forDatabaseFile: path))
    }

    func filePath(_ name: String) -> String {
        configuration.path + "/" + DatabaseFileName.file(for: name)
    }

    /// CouchDB's database name rule: `^[a-z][a-z0-9_$()+/-]*$`, at most 238 characters.
    /// System databases (`_users`, `_replicator`) start with `_` and are the server's business.
    public static func isValidName(_ name: String) -> Bool {
        DatabaseName.isValid(name)
    }
}

/// The open databases, under a lock (opening is rare; the lock is held while opening
/// so two requests never open the same file twice).
private final class OpenDatabases: @unchecked Sendable {
    // @unchecked: `databases` only under `lock`.
    private let lock = Lock()
    private var databases: [String: Database] = [:]

    func withLock<T>(_ body: (inout [String: Database]) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&databases)
    }
}

/// The store's settings; the executable fills them from `settee.ini`.
public struct StoreConfiguration: Sendable {
    /// The data directory (CouchDB's `[couchdb] database_dir`).
    public var path: String
    /// `_revs_limit` of new databases.
    public var defaultRevsLimit: Int = 1000
    /// Readers per database (concurrent SQLite connections for reads): one per core,
    /// at least two. More cannot read in parallel, and each one maps the file again
    /// (`readerMmapSize`), which RSS counts per mapping.
    public var readerCount: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// Bytes of a database file each reader maps (`[settee] reader_mmap_size`); 0 turns
    /// mapping off. Virtual address space only: the pages are the OS page cache's.
    public var readerMmapSize: Int = 256 * 1024 * 1024
    /// Attachment types stored gzip'd (CouchDB's `[attachments] compressible_types`).
    public var compressibleTypes: [String] = Gzip.defaultCompressibleTypes
    /// Attachments of at most this many stored bytes are rows of the blob directory's
    /// `small.sqlite` rather than one file each (`[attachments] inline_max_bytes`; 0: none).
    public var inlineAttachmentLimit: Int = 100 * 1024
    /// Rules for the databases that have them, by name (`_replicator`'s document
    /// checks; `_users`' later): every write to that database passes its rule.
    public var writePolicies: [String: any WritePolicy] = [:]
    /// The rule of a database with none in `writePolicies`, asked at each write: for
    /// rules that follow a setting changed at run time (which database is the
    /// authentication database).
    public var writePolicyResolver: (@Sendable (String) -> (any WritePolicy)?)?
    /// The check every design document write passes in every database, replicated
    /// ones too (CouchDB compiles a design document's functions when it is saved).
    public var designDocumentPolicy: (any WritePolicy)?
    /// Runs before every document write in every database (`validate_doc_update`).
    public var updateValidator: (any UpdateValidator)?
    /// Told of replicated and design document writes after they commit (conflict policies).
    public var conflictWatcher: (any ConflictWatcher)?

    public init(path: String) { self.path = path }
}
