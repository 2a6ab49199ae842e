/*
 First-start chores that turn a `SetteeConfiguration` into a `NodeConfiguration`,
 as CouchDB does them:

 - Server uuid: `[couchdb] uuid` when the ini sets one; otherwise it is generated once
   (32 lowercase hex) and kept in `<data dir>/.uuid`. It lives beside the data rather
   than in the ini because it names the data (replication checkpoints key on it) and
   because the shipped config/settee.ini is a tracked file that should stay pristine.
 - Admin passwords written in plain text under `[admins]` are hashed and the ini is
   rewritten in place with the hashes, so the plain text does not outlive the first
   start. `SETTEE_ADMIN` is hashed in memory only, with a salt derived from the cookie
   secret, so that its hash (and the sessions signed with it) is the same at every start.
*/
internal import SetteeReplicator
internal import FoundationEssentials
internal import Glibc
public import Logging
public import SetteeServer
public import SetteeHTTP
internal import SetteeStore

/// Prepares the node's configuration: uuid, hashed admins, limits.
public enum NodeSetup {
    /// File under the data directory that holds a generated uuid.
    public static let uuidFileName = ".uuid"
    /// Where a generated `[chttpd_auth] secret` is kept.
    public static let secretFileName = ".secret"

    /// Resolves the uuid, hashes admins (rewriting the ini if needed) and maps every
    /// setting onto `NodeConfiguration`.
    /// - Throws: `ConfigError.unwritable` when the data directory or uuid cannot be written.
    public static func nodeConfiguration(for config: inout SetteeConfiguration, logger: Logger) throws(ConfigError)
        -> NodeConfiguration {
        try checkWritable(config.dataDirectory)
        let uuid = try resolveUUID(configured: config.uuid, dataDirectory: config.dataDirectory)
        var http = ServerConfiguration()
        // "localhost" is accepted for safety checks, but the socket layer wants an address.
        http.bindAddresses = config.bindAddresses.map { $0.lowercased() == "localhost" ? "127.0.0.1" : $0 }
        http.port = config.port
        if let size = config.maxHTTPRequestSize { http.limits.maxBodyBytes = size }
        http.servesPlainHTTP = config.plainHTTP
        if let count = config.maxConnections { http.maxConnections = count }
        if config.tls.enabled { http.tls = try tlsListener(config, logger: logger) }
        var node = NodeConfiguration(http: http, store: StoreConfiguration(path: config.dataDirectory), uuid: uuid)
        if let size = config.maxDocumentSize { node.maxDocumentSize = size }
        if let types = config.compressibleTypes { node.store.compressibleTypes = types }
        if let bytes = config.inlineAttachmentLimit { node.store.inlineAttachmentLimit = bytes }
        if let size = config.readerMmapSize { node.store.readerMmapSize = size }
        if let size = config.documentCacheSize { node.store.documentCacheSize = size }
        if let count = config.maxOpenDatabases { node.store.maxOpenDatabases = count }
        node.defaultSecurityIsAdminOnly = config.defaultSecurityIsAdminOnly
        node.adminOnlyAllDatabases = config.adminOnlyAllDatabases
        node.singleNode = config.singleNode
        node.discovery = config.discovery
        node.usersDatabaseSecurityEditable = config.usersDatabaseSecurityEditable
        if let iterations = config.passwordIterations { node.passwordIterations = max(1, iterations) }
        // Sessions survive restarts only if the cookie secret does: keep one beside the uuid.
        node.secret = try resolveUUID(configured: config.secret, dataDirectory: config.dataDirectory,
                                      fileName: secretFileName)
        node.admins = hashFileAdmins(&config, logger: logger)
        if let admin = config.environmentAdmin {
            // Its salt is derived from the cookie secret: the same hash at every start keeps
            // the admin's sessions valid across restarts. Derived when first needed, not here
            // (EnvironmentAdmin: 60 ms of a core at every start).
            node.environmentAdmins[admin.name] = PasswordHash.isHashed(admin.password)
                ? EnvironmentAdmin(hash: admin.password)
                : EnvironmentAdmin(password: admin.password, salt: PasswordHash.salt(for: admin.name, secret: node.secret),
                                   iterations: config.passwordIterations ?? PasswordHash.defaultIterations)
        }
        // What /_node/_local/_config shows and changes: the file (admins hashed by now).
        if let file = config.iniFile {
            node.configSettings = INIConfigPersistence.settings(of: file)
            node.configPersistence = INIConfigPersistence(file)
        }
        node.configSettings.append(ConfigSetting(section: "couchdb", key: "uuid", value: uuid))
        // What the environment and the flags set wins over the file, in `_config` too, and is
        // applied by the server as the file's values are (`[log] level` from SETTEE_LOG_LEVEL).
        node.configOverrides = config.overrides
        node.configSettings = ConfigSetting.overlaid(node.configSettings, with: config.overrides)
        if config.metrics.enabled { node.metricsListener = (config.metrics.address, config.metrics.port) }
        return node
    }

    /// The HTTPS listener: the configured or generated certificate, loaded.
    static func tlsListener(_ config: SetteeConfiguration, logger: Logger) throws(ConfigError) -> TLSListener {
        let files = try TLSFiles.resolve(config.tls, dataDirectory: config.dataDirectory,
                                         bindAddresses: config.bindAddresses)
        let settings = config.tls
        if settings.verifyClientCertificates && settings.clientCAFile == nil {
            throw .tls("[ssl] verify_ssl_certificates needs cacert_file (the CAs client certificates must chain to)")
        }
        let context: TLSContext
        do {
            context = try TLSContext(certificateFile: files.certificate, keyFile: files.key,
                                     clientCAFile: settings.verifyClientCertificates ? settings.clientCAFile : nil,
                                     requireClientCertificate: settings.requireClientCertificate)
        } catch {
            throw .tls(error.description)
        }
        if files.created { logger.notice("generated a self-signed TLS certificate", metadata: ["file": "\(files.certificate)"]) }
        var listener = TLSListener(port: config.tls.port, context: context)
        listener.handshakeTimeout = .seconds(config.tls.handshakeTimeout)
        listener.recordLayer = config.tls.recordLayer
        return listener
    }

    /// Makes the data directory if it is missing and proves it takes a file: a read-only
    /// volume must stop start-up with the system's reason, not leave a server that
    /// answers and then fails every write.
    /// - Throws: `ConfigError.unwritable`.
    static func checkWritable(_ directory: String) throws(ConfigError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(path: directory, reason: systemReason(error))
        }
        let probe = joinedPath(directory, ".settee-write-check")
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: directory, reason: String(cString: strerror(errno))) }
        let wrote = write(fd, "ok", 2)
        let reason = wrote == 2 ? nil : String(cString: strerror(errno))
        close(fd)
        unlink(probe)
        if let reason { throw .unwritable(path: directory, reason: reason) }
    }

    /// The configured uuid, else the one stored in the data directory, else a new one
    /// written there (creating the directory).
    public static func resolveUUID(configured: String?, dataDirectory: String,
                                   fileName: String = uuidFileName) throws(ConfigError) -> String {
        if let configured { return configured }
        let path = joinedPath(dataDirectory, fileName)
        if let stored = try? String(contentsOfFile: path, encoding: .utf8) {
            let trimmed = stored.trimmingBlanks()
            if !trimmed.isEmpty { return trimmed }
        }
        let uuid = UUID().uuidString.replacing("-", with: "").lowercased()
        do {
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            try Data((uuid + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .unwritable(path: path, reason: systemReason(error))
        }
        return uuid
    }

    /// Hashes plain-text `[admins]` values and, when any were plain, rewrites the ini.
    /// A failed rewrite is logged, not fatal: the hashes still apply in memory.
    static func hashFileAdmins(_ config: inout SetteeConfiguration, logger: Logger) -> [String: String] {
        guard var file = config.iniFile else { return config.fileAdmins }
        var admins: [String: String] = [:]
        var rewritten: [String] = []
        for entry in file.entries where entry.section == "admins" {
            if PasswordHash.isHashed(entry.value) {
                admins[entry.key] = entry.value
                continue
            }
            let hash = PasswordHash.hash(password: entry.value,
                                         iterations: config.passwordIterations ?? PasswordHash.defaultIterations)
            admins[entry.key] = hash
            file.replaceValue(of: entry, with: hash)
            rewritten.append(entry.key)
        }
        guard !rewritten.isEmpty else { return admins }
        config.iniFile = file
        config.fileAdmins = admins
        do {
            try file.save()
            logger.notice("hashed plain-text admin passwords in config file",
                          metadata: ["file": "\(file.source)", "admins": "\(rewritten.sorted())"])
        } catch {
            logger.warning("could not rewrite config file with hashed admin passwords",
                           metadata: ["file": "\(file.source)", "error": "\(error)"])
        }
        return admins
    }
}
