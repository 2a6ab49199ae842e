public import Logging
internal import Glibc
internal import FoundationEssentials
internal import Synchronization

/// Where databases live: one SQLite file per database (and its blobs) under
/// `path`. Opens each database once and hands out the same `Database`.
///
/// At most `StoreConfiguration.maxOpenDatabases` user databases are open at once
/// (`[couchdb] max_dbs_open`): past it, the least recently used idle one has its
/// connections closed (`OpenDatabases`, `Database+Idle`). Opening, creating and
/// deleting a file happen under that name's lock only, so a slow open or delete of one
/// database never holds up requests to the others.
///
/// File names: `<encoded name>.couch`, see `DatabaseFileName`.
public final class DatabaseDirectory: Sendable {
    public let configuration: StoreConfiguration
    let logger: Logger
    let registry: OpenDatabases
    /// Names whose file passed `OpenCheck`'s `quick_check` in this process: opened again
    /// after an idle close, they skip it (the process closed them cleanly itself).
    let checkedNames = Mutex<Set<String>>([])
    /// "Too many open databases" is logged once a minute at most.
    let capLog = LogThrottle(interval: .seconds(60))
    /// `_db_updates`: every database created, updated or deleted here, recorded
    /// where it happens (whatever asked for it: HTTP, a replication, a purge).
    public let updates = DatabaseUpdates()
    /// Compactions and index builds running in any of the databases.
    public let tasks = StoreTasks()
    /// The winners its databases' plain reads found lately, in one budget (`[settee] document_cache_size`).
    public let winnerCache: WinnerCache

    /// Opens (creating if needed) the directory at `configuration.path`.
    /// - Throws: `StoreError.io` when it cannot be created.
    public init(configuration: StoreConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        registry = OpenDatabases(capacity: configuration.maxOpenDatabases)
        winnerCache = WinnerCache(budget: configuration.documentCacheSize)
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

    /// The database `name`, opened if needed, or nil when it does not exist.
    /// Blocks while the file opens; `open(_:)` waits for that off the caller's thread.
    /// - Throws: `.allDatabasesActive` when the cap is reached and every open database is busy.
    public func database(named name: String) throws -> Database? {
        if let database = lookUp(name) { return database }
        return try openFile(name)
    }

    /// The database `name` if it is open now; nil when it is closed or does not exist.
    /// Never opens a file, so it never blocks: for a caller that must not wait (an event
    /// loop's thread) and can take the async path when this answers nil.
    public func openedDatabase(named name: String) -> Database? {
        lookUp(name)
    }

    /// `database(named:)` for async callers: an open database at once, else the file is
    /// opened on a thread of its own (SQLite's open and checks block; STYLE 17).
    public func open(_ name: String) async throws -> Database? {
        if let database = lookUp(name) { return database }
        return try await offThread { try self.openFile(name) }
    }

    /// Creates database `name`.
    /// - Throws: `.invalidDatabaseName`, `.databaseExists`, `.allDatabasesActive`.
    public func create(_ name: String) throws -> Database {
        guard Self.isValidName(name) else { throw StoreError.invalidDatabaseName(name) }
        return try underNameLock(name) { slot in
            guard !FileManager.default.fileExists(atPath: filePath(name)) else {
                throw StoreError.databaseExists(name)
            }
            // A sequence or damage mark left by a deleted database of this name is not this one's.
            CommittedSequenceFile.remove(databasePath: filePath(name))
            DamageMarker.remove(databasePath: filePath(name))
            let database: Database
            do {
                database = try openReserved(name, slot: slot)
            } catch {
                // A create that failed half way (a full disk) leaves no file that a later
                // request would take for the database.
                removeFiles(of: filePath(name))
                throw error
            }
            logger.info("created database", metadata: ["db": .string(name)])
            updates.record(.created, databaseName: name)
            return database
        }
    }

    /// Deletes database `name` and its files.
    /// - Throws: `.databaseNotFound`.
    public func delete(_ name: String) throws {
        try underNameLock(name) { slot in
            let path = filePath(name)
            guard Self.isValidName(name), FileManager.default.fileExists(atPath: path) else {
                throw StoreError.databaseNotFound(name)
            }
            registry.remove(name, slot: slot)?.close()
            _ = checkedNames.withLock { $0.remove(name) }
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

    /// How many databases are open now (`_stats` `couchdb.open_databases`).
    public var openCount: Int { registry.openCount }

    /// The cap on open user databases in force (`[couchdb] max_dbs_open`).
    public var maxOpenDatabases: Int { registry.capacity }

    /// Closes every open database, after the work queued on it; the last connection
    /// to a file checkpoints its WAL into it and removes `-wal` and `-shm`
    /// (https://sqlite.org/wal.html), so a stopped server leaves one file per database.
    /// A database asked for afterwards is opened again.
    public func closeAll() {
        for database in registry.removeAll() { database.close() }
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
    /// User databases open at once (`[couchdb] max_dbs_open`); past it the least recently
    /// used idle one is closed. Each open database holds 5 or 6 descriptors (8 with every
    /// reader used, more with attachments) and its SQLite caches; a closed one costs nothing until asked for,
    /// then about 1.5 ms of CPU to open again (bench/manydbs). 500 is CouchDB's default.
    public var maxOpenDatabases: Int = 500
    /// Bytes of a database file each reader maps (`[settee] reader_mmap_size`); 0 turns
    /// mapping off. Virtual address space only: the pages are the OS page cache's.
    public var readerMmapSize: Int = 256 * 1024 * 1024
    /// Bytes of documents' winning revisions kept in memory over all databases, so that a
    /// plain read of a hot document needs no SQLite read (`[settee] document_cache_size`,
    /// `WinnerCache`); 0 keeps none.
    public var documentCacheSize: Int = WinnerCache.defaultBudget
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
