internal import FoundationEssentials
public import Logging
internal import Synchronization

/// One CouchDB database: documents with revision trees, `_local` documents,
/// a changes sequence, all in one SQLite file (WAL).
///
/// Writes are serialized on one writer connection and batched into one
/// transaction where they arrive together; reads run concurrently on a pool
/// of reader connections. An `async` write returns only after its commit
/// (synchronous=FULL), so a caller's 2xx survives `kill -9` and power loss.
public final class Database: Sendable {
    public let name: String
    /// The SQLite file.
    let path: String
    let writer: Writer
    let readers: ReaderPool
    let compaction = CompactionState()
    /// The `_security` object once read; replaced by `setSecurity` after its commit.
    let securityCache = Mutex<[UInt8]?>(nil)
    /// `_revs_limit` once read; replaced by `setRevsLimit` after its commit.
    let revsLimitCache = Mutex<Int?>(nil)
    /// Identical `_changes` reads in flight at once share one query (keyed by since and limit).
    let sharedChangesReads = SharedAtSequence<ChangesReadKey, [Change]>()
    /// `_changes`' `pending` counts, each a start for the next (a feed read page by page).
    let changeCounts = ChangeCounts()
    /// Per key index signature, the update sequence its table is known to have reached:
    /// a query on an index already caught up costs no write job.
    let indexSequences = Mutex<[String: Int64]>([:])
    /// Per key index signature, its rank sample (`indexCounts`), for the state it was taken in.
    let indexRanks = Mutex<[String: KeyIndexRanks]>([:])
    /// One refresh per key index at a time, and each index's last failure.
    let indexRefreshes = KeyIndexRefreshes()
    /// What the server derives from this database's design documents, kept with it.
    package let derived = DerivedValues()
    /// Attachment bytes, content-addressed, in `<file>.blobs`.
    let blobs: BlobStore
    /// Attachment types stored gzip'd.
    let compressibleTypes: [String]
    /// Attachments of at most this many stored bytes are small blobs (`SmallBlobFile`).
    let inlineAttachmentLimit: Int
    /// Wakes `_changes` feeds after each commit that adds changes (no feed polls SQLite).
    public let changesNotifier: ChangesNotifier
    /// Where this database's `updated` events go (`_db_updates`); nil when opened alone.
    let events: DatabaseUpdates?
    /// The rule every write to this database passes (`StoreConfiguration.writePolicies`,
    /// else its `writePolicyResolver`, asked at each write).
    var writePolicy: (any WritePolicy)? { fixedWritePolicy ?? writePolicyResolver?(name) }
    private let fixedWritePolicy: (any WritePolicy)?
    private let writePolicyResolver: (@Sendable (String) -> (any WritePolicy)?)?
    /// The rule every design document write passes (`StoreConfiguration.designDocumentPolicy`).
    let designDocumentPolicy: (any WritePolicy)?
    /// The check before every write (`StoreConfiguration.updateValidator`).
    let updateValidator: (any UpdateValidator)?
    /// Told of the writes that may put documents in conflict (`StoreConfiguration.conflictWatcher`).
    public let conflictWatcher: (any ConflictWatcher)?

    /// Where compactions and index builds show themselves (`_active_tasks`).
    let tasks: StoreTasks
    /// Set when the database is found damaged (`DatabaseDamage`): it is then read-only.
    let damageState: DamageState
    /// The last committed update sequence, kept outside the WAL (`CommittedSequenceFile`).
    let committedSequence: CommittedSequenceFile
    /// Opens the writer's and readers' connections again after an idle close (`Database+Idle`).
    let opener: ConnectionOpener
    /// Winners read lately, answered without a reader (`winner(id:)`, `WinnerCache`).
    let cachedWinners: CachedWinners

    /// Opens (creating and migrating) the file at `path`.
    /// - Parameter winnerCache: shared by the directory's databases; nil: one of this
    ///   database's own, of `configuration.documentCacheSize` bytes.
    /// - Parameter isChecked: the file passed `OpenCheck`'s `quick_check` earlier in this
    ///   process and was closed by it since (an idle close): the check is not run again.
    init(name: String, path: String, configuration: StoreConfiguration, events: DatabaseUpdates? = nil,
         tasks: StoreTasks = StoreTasks(), logger: Logger = Logger(label: "settee.store"), isChecked: Bool = false,
         winnerCache: WinnerCache? = nil) throws {
        self.name = name
        self.tasks = tasks
        self.path = path
        self.events = events
        fixedWritePolicy = configuration.writePolicies[name]
        writePolicyResolver = configuration.writePolicyResolver
        designDocumentPolicy = configuration.designDocumentPolicy
        updateValidator = configuration.updateValidator
        conflictWatcher = configuration.conflictWatcher
        let connection = try Connection(path: path)
        try Schema.migrate(connection, path: path, revsLimit: configuration.defaultRevsLimit)
        blobs = try BlobStore(directory: BlobStore.directory(forDatabaseFile: path))
        // No writer exists yet, so every temp file is a leftover of a crash.
        try blobs.sweepTemporaryFiles()
        compressibleTypes = configuration.compressibleTypes
        inlineAttachmentLimit = max(0, configuration.inlineAttachmentLimit)
        let sequence = try DocumentRecords.updateSequence(connection)
        changesNotifier = ChangesNotifier(sequence: sequence)
        let committed = CommittedSequenceFile(databasePath: path)
        committedSequence = committed
        let cachedWinners = (winnerCache ?? WinnerCache(budget: configuration.documentCacheSize)).shelf()
        self.cachedWinners = cachedWinners
        let commits = CommitCounter(cachedWinners: cachedWinners)
        let opener = ConnectionOpener(path: path, name: name, readerMmapSize: max(0, configuration.readerMmapSize))
        self.opener = opener
        let writer = Writer(connection: connection, label: name, commits: commits, opener: opener) { db in
            if let sequence = try? DocumentRecords.updateSequence(db) { committed.record(sequence) }
        }
        self.writer = writer
        let damageState = DamageState(database: name, databasePath: path, logger: logger)
        readers = ReaderPool(opener: opener, count: max(1, configuration.readerCount), label: name,
                             commits: commits) { error in
            // A malformed page met by a read (`_all_docs`, `_changes` mid-stream): the
            // rest of the file cannot be trusted either, so no more writes go into it.
            _ = Database.markDamaged(DatabaseDamage(reason: "a read found the file malformed (\(error)); "
                + "the database is read-only until `settee check --repair`"), damageState, writer, name: name)
        }
        self.damageState = damageState
        writer.onIOFailure { [weak writer] error in
            guard let writer else { return }
            _ = Database.markDamaged(DatabaseDamage.ioFailure(error), damageState, writer, name: name)
        }
        if let damage = OpenCheck.run(connection, path: path, sequence: sequence, record: committed,
                                      quickCheck: !isChecked) {
            markDamaged(damage)
        }
    }

    /// Why the database is read-only, or nil while it is sound.
    public var damage: DatabaseDamage? { damageState.current }

    /// Makes the database read-only for `damage` (the first reason found stays), with
    /// an error line in the log. - Returns: whether it was sound until now.
    @discardableResult
    func markDamaged(_ damage: DatabaseDamage) -> Bool {
        Self.markDamaged(damage, damageState, writer, name: name)
    }

    private static func markDamaged(_ damage: DatabaseDamage, _ state: DamageState, _ writer: Writer,
                                    name: String) -> Bool {
        guard state.mark(damage) else { return false }
        writer.refuseWrites(with: .databaseDamaged(name: name, reason: damage.reason))
        return true
    }

    /// Closes every connection after running work, for good: used when the database is
    /// deleted or the directory closes everything (a handle kept elsewhere then throws
    /// `.databaseNotFound` rather than make the file anew).
    func close() {
        opener.retire()
        cachedWinners.close()
        writer.close()
        readers.close()
        blobs.close()
    }

    // MARK: Information

    /// `GET /{db}`'s figures: live and deleted document counts, update seq and sizes.
    public func info() async throws -> DatabaseInfo {
        let isCompacting = compaction.isRunning
        let name = self.name
        let damage = self.damage
        return try await readers.read { db in
            let sizes = try FileUsage.sizes(db)
            let totals = try DocumentCounts.totals(db)
            return DatabaseInfo(
                name: name,
                docCount: totals.live,
                deletedDocCount: totals.deleted,
                updateSeq: try DocumentRecords.updateSequence(db),
                purgeSeq: try db.integer("SELECT value FROM info WHERE key = 'purge_seq'") ?? 0,
                fileSize: sizes.file, activeSize: sizes.active,
                externalSize: totals.externalBytes,
                isCompacting: isCompacting,
                shardCount: Int(try db.integer("SELECT value FROM info WHERE key = 'q'") ?? 1),
                damage: damage?.reason)
        }
    }

    /// Records the `q` a database was created with (`?q=`); Settee keeps one file
    /// whatever it is, and reports it in `GET /{db}`'s `cluster`.
    public func setShardCount(_ q: Int) async throws {
        try await writer.write { db in
            try db.run("INSERT OR REPLACE INTO info(key, value) VALUES ('q', ?)", [.integer(Int64(q))])
        }
    }

    /// The current update sequence.
    public func updateSequence() async throws -> Int64 {
        try await readers.read { try DocumentRecords.updateSequence($0) }
    }

    // MARK: Maintenance

    /// `_revs_limit`: how many revisions each path keeps. Kept in memory after the first
    /// read: every read with `revs=true` (a replicator's `_bulk_get` and `open_revs`) cuts
    /// `_revisions` to it.
    public func revsLimit() async throws -> Int {
        if let cached = revsLimitCache.withLock({ $0 }) { return cached }
        let stored = try await readers.read { try DocumentRecords.revsLimit($0) }
        revsLimitCache.withLock { if $0 == nil { $0 = stored } }
        return stored
    }

    /// Sets `_revs_limit`; paths are stemmed to it on their next write.
    /// - Throws: `.invalidDocument` when `limit` is below 1.
    public func setRevsLimit(_ limit: Int) async throws {
        guard limit >= 1 else { throw StoreError.invalidDocument("revs_limit must be positive") }
        try await writer.write { db in
            try db.run("INSERT OR REPLACE INTO info(key, value) VALUES ('revs_limit', ?)", [.integer(Int64(limit))])
        }
        revsLimitCache.withLock { $0 = limit }
    }

    /// The stored `_security` object (serialized JSON), `{}` when never set.
    /// Kept in memory after the first read: the server checks it on every request.
    public func security() async throws -> [UInt8] {
        if let cached = securityCache.withLock({ $0 }) { return cached }
        let stored = try await readers.read { db in
            var object: [UInt8]?
            try db.query("SELECT value FROM info WHERE key = 'security'") { object = $0.blob(0) }
            return object ?? Array("{}".utf8)
        }
        securityCache.withLock { if $0 == nil { $0 = stored } }
        return stored
    }

    /// Stores the `_security` object (serialized JSON, validated by the caller).
    public func setSecurity(_ object: [UInt8]) async throws {
        try await writer.write { db in
            try db.run("INSERT OR REPLACE INTO info(key, value) VALUES ('security', ?)", [.blob(object)])
        }
        securityCache.withLock { $0 = object }
    }
}

/// Whether a compaction runs; read by `info()` from any thread.
final class CompactionState: @unchecked Sendable {
    // @unchecked: `running` only under `lock`.
    private let lock = Lock()
    private var running = false

    var isRunning: Bool { lock.withLock { running } }

    /// Marks a compaction started; false when one already runs.
    func begin() -> Bool {
        lock.withLock {
            defer { running = true }
            return !running
        }
    }

    func end() { lock.withLock { running = false } }
}
