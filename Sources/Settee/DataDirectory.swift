public import Logging
internal import Synchronization
internal import SetteeConfig
internal import SetteeReplicator
package import SetteeServer
internal import SetteeStore
internal import SetteeHTTP

/// A Settee data directory opened inside this program: the same files `settee serve`
/// keeps (one SQLite file per database, attachments beside it, `.uuid`), so a program
/// and a server can use one directory, one at a time.
///
///     let data = try DataDirectory(path: "/var/lib/notes")
///     let notes = try await data.database("notes")
///     let saved = try await notes.save(Note(text: "hello"), id: "n1")
///
/// Opening takes the directory's lock (`.settee.lock`, an `flock`): while this value
/// is open no other process (and no other `DataDirectory` here) can open it, and
/// `settee serve` on it exits with an error. ``close()`` (or the end of the process)
/// releases it.
public final class DataDirectory: Sendable {
    /// What a directory is opened with.
    public struct Options: Sendable {
        /// Who this program's writes are made as (``Identity/local`` unless declared).
        public var identity: Identity = .local
        /// `[couchdb] max_document_size`: bytes of a document's JSON.
        public var maxDocumentSize = 8_000_000
        /// Server admins of the listener, name → password (kept in memory and hashed
        /// there when first needed, never written). Without any, a ``Listener`` admits no one to admin-only databases.
        public var admins: [String: String] = [:]
        /// Publish the listener on DNS-SD (as ``serviceType``) as this instance name
        /// (nil: no publishing).
        public var serviceName: String?
        /// The databases the DNS-SD record advertises (`path` entries) when published;
        /// nil for every database but the system ones.
        public var advertisedDatabases: [String]? = []
        /// The DNS-SD service type published and browsed (`[discovery] type`): copies of
        /// one program can take a type of their own to find only each other.
        public var serviceType = "_couchdb._tcp"
        /// Databases kept in continuous two-way replication with every peer found on
        /// DNS-SD that advertises them (`[discovery] sync`, as `settee serve` keeps them);
        /// needs ``serviceName`` and a started ``Listener``. Those replications write as
        /// the node itself, as `settee serve`'s do, not as ``identity``.
        public var syncedDatabases: [String] = []
        /// `name:password` this program presents to those peers (`[discovery]
        /// credentials`), or a pairing URL (`settee pair`) whose `#fp=` pins its certificate.
        public var peerCredentials: String?
        /// Whether to sync with a peer's HTTPS listener pinned to the fingerprint its
        /// DNS-SD record advertises (`[discovery] trust_advertised_fingerprint`): trust
        /// on first sight, so off by default, and peers publishing only HTTPS are then left alone.
        public var trustsAdvertisedFingerprints = false
        /// Where Settee logs; by default warnings and worse, to standard error.
        public var logger: Logger?

        public init() {}
    }

    package let node: SetteeNode
    let directory: DatabaseDirectory
    let options: Options
    let uuid: String
    let logger: Logger
    private let lock: Mutex<DataDirectoryLock?>
    /// Listeners started here, stopped by `close()`.
    let listeners = Mutex<[Listener]>([])
    /// Remote peers' connections, shared by every replication of this directory.
    let session = CurlSession(maxConnections: CurlSession.connectionsPerReplication)

    /// The directory's path.
    public let path: String

    /// Opens (creating when missing) the data directory at `path`.
    /// - Throws: ``SetteeError/directoryLocked(path:)`` when another process (or another
    ///   open here) holds it; ``SetteeError/io(operation:path:errno:)`` when it cannot
    ///   be created or written.
    public init(path: String, options: Options = Options()) throws(SetteeError) {
        self.path = path
        self.options = options
        var logger = options.logger ?? Logger(label: "settee")
        if options.logger == nil { logger.logLevel = .warning }
        self.logger = logger
        do {
            let configuration = try Self.nodeConfiguration(path: path, options: options)
            let lock = try DataDirectoryLock(directory: path)
            uuid = configuration.uuid
            node = try SetteeNode(configuration: configuration, logger: logger)
            directory = node.databaseDirectory
            self.lock = Mutex(lock)
        } catch let error as ConfigError {
            throw .io(operation: "open", path: path, errno: 0).withReason(error)
        } catch {
            throw SetteeError.from(error)
        }
    }

    /// The data directory `settee serve` runs on: its lock taken, then its node made from
    /// the server's own configuration (ini, environment, flags), nothing bound. The
    /// executable opens its directory through here, as a program does.
    /// - Throws: the lock's `StoreError.directoryLocked`, or the node's error, as they are:
    ///   the server reports them in its own words.
    package init(serving configuration: NodeConfiguration, logger: Logger) throws {
        path = configuration.store.path
        var options = Options()
        options.maxDocumentSize = configuration.maxDocumentSize
        self.options = options
        self.logger = logger
        let lock = try DataDirectoryLock(directory: path)
        uuid = configuration.uuid
        node = try SetteeNode(configuration: configuration, logger: logger)
        directory = node.databaseDirectory
        self.lock = Mutex(lock)
    }

    private static func nodeConfiguration(path: String, options: Options) throws -> NodeConfiguration {
        let store = StoreConfiguration(path: path)
        let uuid = try NodeSetup.resolveUUID(configured: nil, dataDirectory: path)
        var configuration = NodeConfiguration(http: ServerConfiguration(), store: store, uuid: uuid)
        configuration.secret = try NodeSetup.resolveUUID(configured: nil, dataDirectory: path,
                                                         fileName: NodeSetup.secretFileName)
        configuration.maxDocumentSize = options.maxDocumentSize
        // As SETTEE_ADMIN's: proved against the password given, the hash derived when first
        // needed (60 ms of a core per admin at every open otherwise), its salt the node's own.
        for (name, password) in options.admins {
            configuration.environmentAdmins[name] = EnvironmentAdmin(
                password: password, salt: PasswordHash.salt(for: name, secret: configuration.secret),
                iterations: PasswordHash.defaultIterations)
        }
        if let name = options.serviceName {
            configuration.discovery.enabled = true
            configuration.discovery.instanceName = name
            configuration.discovery.databases = options.advertisedDatabases
            configuration.discovery.type = options.serviceType
            configuration.discovery.sync = options.syncedDatabases
            configuration.discovery.credentials = options.peerCredentials
            configuration.discovery.trustAdvertisedFingerprint = options.trustsAdvertisedFingerprints
        }
        return configuration
    }

    /// The database `name`, created when missing and `createIfMissing`.
    /// - Throws: ``SetteeError/databaseNotFound(_:)``, ``SetteeError/invalidDatabaseName(_:)``,
    ///   ``SetteeError/closed``.
    public func database(_ name: String, createIfMissing: Bool = true) async throws(SetteeError) -> Database {
        try checkOpen()
        do {
            if let database = try directory.database(named: name) { return Database(database, in: self) }
            guard createIfMissing else { throw SetteeError.databaseNotFound(name) }
            guard DatabaseDirectory.isValidName(name) else { throw SetteeError.invalidDatabaseName(name) }
            do {
                return Database(try await node.createDatabase(name), in: self)
            } catch StoreError.databaseExists {
                // Created by another task meanwhile: that one is as good.
                guard let database = try directory.database(named: name) else { throw SetteeError.databaseNotFound(name) }
                return Database(database, in: self)
            }
        } catch {
            throw SetteeError.from(error)
        }
    }

    /// The names of the directory's databases, in byte order.
    public func databaseNames() throws(SetteeError) -> [String] {
        try checkOpen()
        do { return try directory.names() } catch { throw SetteeError.from(error) }
    }

    /// Deletes database `name` and its files.
    /// - Throws: ``SetteeError/databaseNotFound(_:)``.
    public func deleteDatabase(_ name: String) throws(SetteeError) {
        try checkOpen()
        do { try directory.delete(name) } catch { throw SetteeError.from(error) }
    }

    /// Whether ``close()`` has run.
    public var isClosed: Bool { lock.withLock { $0 == nil } }

    /// Stops listeners and replications, closes every database (after the writes in
    /// flight) and releases the directory for another process. Calls after the first do nothing.
    public func close() async {
        guard !isClosed else { return }
        for listener in listeners.withLock({ $0 }) { await listener.stop() }
        await node.shutdown()
        lock.withLock { $0 = nil }
    }

    func checkOpen() throws(SetteeError) {
        if isClosed { throw .closed }
    }
}

extension SetteeError {
    /// An `.io` error carrying a configuration failure's reason in its operation.
    fileprivate func withReason(_ error: ConfigError) -> SetteeError {
        guard case .io(_, let path, let code) = self else { return self }
        return .io(operation: "open (\(error))", path: path, errno: code)
    }
}
