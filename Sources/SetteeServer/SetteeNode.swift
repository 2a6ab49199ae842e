import Synchronization
import SetteeDocuments
public import Logging
public import SetteeHTTP
internal import SetteeReplicator
public import SetteeStore

/// Everything a Settee node needs to run, filled in by the executable from `settee.ini`.
public struct NodeConfiguration: Sendable {
    public var http: ServerConfiguration
    public var store: StoreConfiguration
    /// The server's stable uuid (`GET /`), 32 lowercase hex.
    public var uuid: String
    /// Admin name → CouchDB password hash as stored in `[admins]` (`-pbkdf2-...`).
    public var admins: [String: String] = [:]
    /// `[couchdb] max_document_size`: bytes of a document's JSON (413 past it).
    public var maxDocumentSize: Int = 8_000_000
    /// Deepest JSON nesting accepted in a request body (400 past it).
    public var maxJSONDepth: Int = 512
    /// `[chttpd_auth] secret`: signs `AuthSession` cookies. Persist it to keep
    /// sessions valid across restarts; the default lasts one process.
    public var secret: String = UUIDs.random()
    /// `[chttpd_auth] timeout`: seconds an `AuthSession` cookie stays valid.
    public var sessionTimeout: Int = 600
    /// `[chttpd_auth] allow_persistent_cookies`.
    public var allowPersistentCookies = true
    /// `[chttpd_auth] iterations` for new password hashes (admins and `_users`).
    public var passwordIterations = PasswordHash.defaultIterations
    /// `[couchdb] default_security = admin_only` (CouchDB 3's default): a new
    /// database admits only admins until its `_security` says otherwise.
    public var defaultSecurityIsAdminOnly = true
    /// `[chttpd] x_forwarded_host`: the request header a proxy names the original
    /// host in; `Location` headers are built from it before `Host`.
    public var forwardedHostHeader = "X-Forwarded-Host"
    /// `[chttpd] admin_only_all_dbs` (CouchDB 3's default): `_all_dbs` and
    /// `_dbs_info` answer server admins only.
    public var adminOnlyAllDatabases = true
    /// `[chttpd_auth_lockout]`: wrong passwords per user and client address.
    public var loginLockout = LoginLockoutConfiguration()
    /// `[couchdb] users_db_security_editable` (false in CouchDB 3): `_users`' `_security`
    /// is fixed, so only admins ever reach user documents.
    public var usersDatabaseSecurityEditable = false
    /// `[couchdb] single_node`: a single-node server makes `_users` and
    /// `_replicator` on its first start, as CouchDB's single-node setup does.
    public var singleNode = true
    /// `[discovery]`: DNS-SD and replication with the peers it finds.
    public var discovery = DiscoveryConfiguration()
    /// `[prometheus] additional_port`, `bind_address`, `port`: metrics without credentials
    /// on a listener of their own (nil: none).
    public var metricsListener: (address: String, port: Int)?
    /// Admins given at start (`SETTEE_ADMIN`, a program's admins): the config API neither
    /// shows nor removes them, and one of the same name in `admins` is not used.
    public var environmentAdmins: [String: EnvironmentAdmin] = [:]
    /// The ini file's settings, shown and changed by `/_node/_local/_config`, with
    /// `configOverrides` over them.
    public var configSettings: [ConfigSetting] = []
    /// Settings given outside the file (`SETTEE_*` variables, flags): they win over the
    /// file's again when `_config/_reload` rereads it.
    public var configOverrides: [ConfigSetting] = []
    /// Where config changes are written; nil: they last until restart.
    public var configPersistence: (any ConfigPersistence)?
    /// Threads that run design document JavaScript (`[settee] javascript_threads`; nil:
    /// one per core), and calls that may wait for one before new calls get 503
    /// (`[settee] javascript_queue`).
    public var javaScriptThreads: Int?
    public var javaScriptQueueLimit = 256
    /// Sets the log level by CouchDB's name for it (`[log] level` over HTTP); false if unknown.
    public var setLogLevel: @Sendable (String) -> Bool = { _ in false }

    public init(http: ServerConfiguration, store: StoreConfiguration, uuid: String) {
        self.http = http
        self.store = store
        self.uuid = uuid
    }
}

extension NodeConfiguration {
    /// What an ini value of a setting the server applies live (`[uuids]`, `[cors]`,
    /// `[chttpd] require_valid_user`...) must be, when it is not that; nil when fine.
    /// The same rule the config API answers 400 with.
    public static func expectation(section: String, key: String, value: String) -> String? {
        ConfigEffects.expectation(section: section, key: key, value: value)
    }
}

/// `[chttpd_auth_lockout] mode, threshold, max_lifetime` (CouchDB 3.4's defaults).
public struct LoginLockoutConfiguration: Sendable {
    /// `off`, `warn` (count, refuse nothing) or `enforce`.
    public var mode = "enforce"
    public var threshold = 5
    /// Milliseconds from a user's first failure from an address until it is forgotten.
    public var maxLifetime = 300_000

    public init() {}
}

/// A running Settee: the store, the CouchDB router and the HTTP server, wired together.
///
///     let node = try SetteeNode(configuration: config, logger: logger)
///     let ports = try node.start()
///     await node.run()                 // until shutdown()
public final class SetteeNode: Sendable {
    public let configuration: NodeConfiguration
    let directory: DatabaseDirectory
    let server: HTTPServer
    /// The CouchDB API the listeners answer with (`settee serve`'s and an embedding program's).
    let router: CouchRouter
    let replications: ReplicationManager
    let discovery: NodeDiscovery?
    let state: NodeState
    /// Runs every design document function, on threads of its own (THREADS.md).
    let javaScript: JavaScriptService
    /// `[prometheus] additional_port`'s listener, and its port once bound.
    let metricsServer: HTTPServer?
    private let boundMetricsPort = Mutex<Int?>(nil)
    /// Returns freed heap to the system while the node runs (`HeapTrimmer`).
    private let heapTrimmer = Mutex<HeapTrimmer?>(nil)

    /// - Throws: `StoreError` when the data directory cannot be opened.
    public init(configuration: NodeConfiguration, logger: Logger) throws {
        self.configuration = configuration
        var store = configuration.store
        store.writePolicies[ReplicationManager.databaseName] = ReplicatorDocumentPolicy()
        // `_users`' rules follow `[chttpd_auth] authentication_db` as it changes (CouchDB's is_users_db).
        let authentication = AuthenticationDatabase()
        let usersPolicy = UsersDatabasePolicy(iterations: configuration.passwordIterations,
                                              requirements: authentication.passwordRequirements)
        store.writePolicyResolver = { authentication.isUsersDatabase($0) ? usersPolicy : nil }
        let setting = { (key: String) in
            configuration.configSettings.last { $0.section == "settee" && $0.key == key }.flatMap { Int($0.value) }
        }
        javaScript = JavaScriptService(threadCount: configuration.javaScriptThreads ?? setting("javascript_threads"),
                                       queueLimit: setting("javascript_queue") ?? configuration.javaScriptQueueLimit)
        store.designDocumentPolicy = DesignDocumentPolicy()
        store.updateValidator = DocumentValidation(service: javaScript, authentication: authentication)
        store.conflictWatcher = ConflictResolver(service: javaScript, logger: logger)
        directory = try DatabaseDirectory(configuration: store, logger: logger)
        router = CouchRouter(configuration: configuration, directory: directory, javaScript: javaScript,
                             authentication: authentication)
        replications = router.state.replications
        discovery = router.state.discovery
        state = router.state
        server = HTTPServer(configuration: configuration.http, responder: router, logger: logger,
                            connectionCount: router.state.connections)
        if let listener = configuration.metricsListener {
            var http = ServerConfiguration()
            http.bindAddresses = [listener.address]
            http.port = listener.port
            http.eventLoops = 1  // a scrape now and then: one thread is plenty
            metricsServer = HTTPServer(configuration: http, responder: MetricsResponder(node: router.state), logger: logger)
        } else {
            metricsServer = nil
        }
    }

    /// Creates the system databases a single node keeps (`_users`, `_replicator`,
    /// CouchDB's `setup:cluster_system_dbs`) when they are missing, and the `[discovery] sync`
    /// databases (`createSyncDatabases`). Call before `start()`.
    public func prepare() async throws {
        if configuration.singleNode {
            for name in ["_users", "_replicator"] where try directory.database(named: name) == nil {
                _ = try await DatabaseHandlers.create(name, directory: directory, configuration: configuration)
            }
        }
        await createSyncDatabases()  // before `start()` publishes: the first record lists them
        // CouchDB's auth cache makes sure of `_design/_auth` whenever it starts watching the database.
        if let users = try directory.database(named: state.live.authentication.name) {
            try await AuthDesignDocument.ensure(in: users)
        }
    }

    /// Starts listening. - Returns: the bound ports.
    public func start() throws -> [Int] {
        if let metricsServer {
            let port = try metricsServer.start().first
            boundMetricsPort.withLock { $0 = port }
        }
        let ports = try server.start()
        state.boundTLSPort.withLock { $0 = server.tlsPorts.first }
        replications.start()
        heapTrimmer.withLock { $0 = $0 ?? HeapTrimmer() }
        discovery?.start(ports: ports, tlsPorts: server.tlsPorts,
                         tlsFingerprint: configuration.http.tls?.context.fingerprint)
        return ports
    }

    /// The `[prometheus] additional_port` listener's bound port after `start()`, if any.
    public var metricsPort: Int? { boundMetricsPort.withLock { $0 } }

    /// The bound HTTPS ports after `start()`, one per bind address; empty without `[ssl]`.
    public var tlsPorts: [Int] { server.tlsPorts }

    /// Suspends until `shutdown()` has finished.
    public func run() async { await server.run() }

    /// Stops the replications, then the HTTP server (in-flight requests finish),
    /// then closes the databases.
    public func shutdown() async {
        discovery?.stop()
        await replications.stop()
        await server.shutdown()
        await metricsServer?.shutdown()
        directory.closeAll()
        javaScript.releaseEngines()
        heapTrimmer.withLock { $0?.stop(); $0 = nil }
    }
}
