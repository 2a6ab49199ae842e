/*
 The executable's settings, gathered from four layers. Precedence, highest first:

   command-line flag  >  environment (SETTEE_*)  >  ini file  >  built-in default

 The ini file is `--config PATH`, else `$SETTEE_CONFIG`, else none. Supported keys:

   [chttpd]  bind_address (comma-separated list allowed), port, max_http_request_size,
             x_forwarded_host, admin_only_all_dbs
   [couchdb] database_dir, max_document_size, uuid, default_security, single_node,
             users_db_security_editable, max_dbs_open
   [admins]  name = password-or-hash
   [chttpd_auth_lockout] mode (off, warn, enforce), threshold, max_lifetime (ms)
   [log]     level
   [ssl]     enable, port (6984), cert_file, key_file (generated in the data directory when
             unset), handshake_timeout (seconds)
   [settee]  reader_mmap_size, plain_http (false: HTTPS only)
   [discovery] enabled, name, type, databases (list or *), sync (list), credentials
             (name:password for peers), trust_advertised_fingerprint, topology (mesh or hub)

 The one table of every key (its check, default, and whether `_config` applies it at
 once, at the next start or never) is SetteeServer's `ConfigKeys`; the keys above are
 applied here, the rest by the server from the file's settings.

 Anything else in the file is reported as one warning per setting and ignored, so a
 CouchDB local.ini can be reused. `SETTEE_ADMIN=name:password` adds one admin on top
 of `[admins]`; it is hashed in memory only, never written anywhere.
*/
internal import SetteeReplicator
internal import FoundationEssentials
public import Logging
public import SetteeServer

/// Values given on the command line; `nil` means "not given".
public struct ConfigOverrides: Sendable {
    public var configPath: String?
    public var port: Int?
    public var bindAddress: String?
    public var dataDirectory: String?
    public var logLevel: String?

    public init(configPath: String? = nil, port: Int? = nil, bindAddress: String? = nil,
                dataDirectory: String? = nil, logLevel: String? = nil) {
        (self.configPath, self.port, self.bindAddress) = (configPath, port, bindAddress)
        (self.dataDirectory, self.logLevel) = (dataDirectory, logLevel)
    }
}

/// Settee's configuration after merging flags, environment, ini file and defaults.
///
///     var config = try SetteeConfiguration.load(overrides: flags, environment: ProcessInfo.processInfo.environment)
///     try config.checkBindSafety()
public struct SetteeConfiguration: Sendable {
    /// The embedded default data directory, relative to the working directory.
    public static let defaultDataDirectory = "./data"
    /// Every key the loader reads, by section: the one table's (`ConfigKeys`).
    static var knownKeys: [String: Set<String>] { ConfigKeys.known }

    /// The ini file in use, if any (kept for in-place rewrites).
    public var iniFile: INIFile?
    public var bindAddresses: [String] = ["127.0.0.1"]
    public var port: Int = 5984
    public var dataDirectory: String = defaultDataDirectory
    /// `[chttpd] admin_only_all_dbs`: `_all_dbs` and `_dbs_info` for admins only.
    public var adminOnlyAllDatabases = true
    /// `[couchdb] single_node`: create `_users` and `_replicator` on first start.
    public var singleNode = true
    /// `[chttpd_auth_lockout]`: wrong-password lockout per user and client address.
    public var loginLockout = LoginLockoutConfiguration()
    /// `[couchdb] users_db_security_editable`: whether `_users`' `_security` may change.
    public var usersDatabaseSecurityEditable = false
    /// `[chttpd] x_forwarded_host`: the header a proxy names the original host in.
    public var forwardedHostHeader = "X-Forwarded-Host"
    /// `[chttpd] max_http_request_size`, when set.
    public var maxHTTPRequestSize: Int?
    /// `[couchdb] max_document_size`, when set.
    public var maxDocumentSize: Int?
    /// `[couchdb] uuid`, when set in the file.
    public var uuid: String?
    /// `[couchdb] default_security`: `admin_only` (CouchDB 3's default) or `everyone`.
    public var defaultSecurityIsAdminOnly = true
    /// `[chttpd_auth] secret`, when set; otherwise one is kept in the data directory.
    public var secret: String?
    /// `[chttpd_auth] timeout`: seconds a session cookie lives.
    public var sessionTimeout: Int?
    /// `[chttpd_auth] allow_persistent_cookies`.
    public var allowPersistentCookies = true
    /// `[chttpd_auth] iterations` for new password hashes; CouchDB 3.4.3's default when unset.
    public var passwordIterations: Int?
    /// `[attachments] compressible_types`, when set: comma-separated patterns such as `text/*`.
    public var compressibleTypes: [String]?
    /// `[attachments] inline_max_bytes`, when set: attachments up to this size are rows of the blob directory's `small.sqlite`.
    public var inlineAttachmentLimit: Int?
    /// `[settee] reader_mmap_size`, when set: bytes of each database file a reader maps.
    public var readerMmapSize: Int?
    /// `[couchdb] max_dbs_open`, when set: user databases open at once.
    public var maxOpenDatabases: Int?
    /// `[ssl]`: HTTPS beside (or, with `[settee] plain_http = false`, instead of) HTTP.
    public var tls = TLSSettings()
    /// `[discovery]`: DNS-SD publishing, browsing and sync with peers.
    public var discovery = DiscoveryConfiguration()
    /// `[prometheus] additional_port, bind_address, port` (CouchDB's defaults: off,
    /// 127.0.0.1, 17986): metrics without credentials on a listener of their own.
    public var metrics: (enabled: Bool, address: String, port: Int) = (false, "127.0.0.1", 17986)
    /// `[settee] plain_http`: whether plain HTTP is served at all.
    public var plainHTTP = true
    /// `[admins]` as written in the file: name → plain password or CouchDB hash.
    public var fileAdmins: [String: String] = [:]
    /// The admin from `SETTEE_ADMIN`, if set.
    public var environmentAdmin: (name: String, password: String)?
    public var logLevel: Logger.Level = .info
    /// `[log] stream`: where log lines go, `stderr` (default) or `stdout` (a container's log).
    public var logToStandardOutput = false
    /// One line per ignored setting, for the caller to log.
    public var warnings: [String] = []

    public init() {}

    /// Whether any admin is configured (CouchDB's "admin party" is over).
    public var hasAdmin: Bool { !fileAdmins.isEmpty || environmentAdmin != nil }

    /// Loads and merges every layer.
    /// - Throws: `ConfigError` for an unreadable or malformed file or a bad value.
    public static func load(overrides: ConfigOverrides, environment: [String: String]) throws(ConfigError)
        -> SetteeConfiguration {
        var config = SetteeConfiguration()
        if let path = overrides.configPath ?? environment["SETTEE_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let file = try INIFile(contentsOf: path)
            try config.apply(file)
            config.iniFile = file
        }
        try config.apply(environment: environment)
        try config.apply(overrides)
        return config
    }

    /// Applies the settings of `file` over the current values.
    public mutating func apply(_ file: INIFile) throws(ConfigError) {
        for entry in file.entries {
            let origin = "\(file.source):\(entry.line)"
            switch (entry.section, entry.key) {
            case ("chttpd", "bind_address"): bindAddresses = try Self.addresses(entry.value, origin: origin)
            case ("chttpd", "port"): port = try Self.port(entry.value, origin: origin)
            case ("chttpd", "max_http_request_size"): maxHTTPRequestSize = try Self.size(entry.value, origin: origin)
            case ("chttpd", "x_forwarded_host"):
                guard !entry.value.isEmpty else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "a header name")
                }
                forwardedHostHeader = entry.value
            case ("chttpd", "admin_only_all_dbs"):
                adminOnlyAllDatabases = try Self.boolean(entry.value, origin: origin)
            case ("couchdb", "single_node"): singleNode = try Self.boolean(entry.value, origin: origin)
            case ("couchdb", "users_db_security_editable"):
                usersDatabaseSecurityEditable = try Self.boolean(entry.value, origin: origin)
            case ("couchdb", "database_dir"): dataDirectory = entry.value
            case ("couchdb", "max_document_size"): maxDocumentSize = try Self.size(entry.value, origin: origin)
            case ("couchdb", "max_dbs_open"):
                guard let count = Int(entry.value), count >= 1 else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "a number of databases, at least 1")
                }
                maxOpenDatabases = count
            case ("couchdb", "uuid"): uuid = entry.value.isEmpty ? nil : entry.value
            case ("couchdb", "default_security"):
                guard ["admin_only", "everyone"].contains(entry.value) else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "admin_only or everyone")
                }
                defaultSecurityIsAdminOnly = entry.value == "admin_only"
            case ("chttpd_auth", "secret"): secret = entry.value.isEmpty ? nil : entry.value
            case ("chttpd_auth", "timeout"): sessionTimeout = try Self.size(entry.value, origin: origin)
            case ("chttpd_auth", "allow_persistent_cookies"):
                allowPersistentCookies = try Self.boolean(entry.value, origin: origin)
            case ("chttpd_auth", "iterations"): passwordIterations = try Self.size(entry.value, origin: origin)
            case ("chttpd_auth_lockout", "mode"): loginLockout.mode = entry.value
            case ("chttpd_auth_lockout", "threshold"): loginLockout.threshold = try Self.size(entry.value, origin: origin)
            case ("chttpd_auth_lockout", "max_lifetime"):
                loginLockout.maxLifetime = try Self.size(entry.value, origin: origin)
            case ("attachments", "compressible_types"):
                compressibleTypes = entry.value.split(separator: ",").map { $0.trimmingBlanks() }
            case ("attachments", "inline_max_bytes"):
                guard let bytes = Int(entry.value), bytes >= 0 else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "a number of bytes (0: none)")
                }
                inlineAttachmentLimit = bytes
            case ("log", "level"): logLevel = try Self.level(entry.value, origin: origin)
            case ("log", "stream"): logToStandardOutput = try Self.stream(entry.value, origin: origin)
            case ("settee", "reader_mmap_size"):
                guard let bytes = Int(entry.value), bytes >= 0 else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "a number of bytes (0: off)")
                }
                readerMmapSize = bytes
            case ("discovery", "enabled"): discovery.enabled = try Self.boolean(entry.value, origin: origin)
            case ("discovery", "name"): discovery.instanceName = entry.value.isEmpty ? nil : entry.value
            case ("discovery", "type"):
                guard entry.value.hasPrefix("_"), entry.value.hasSuffix("._tcp") || entry.value.hasSuffix("._udp") else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "a DNS-SD type such as _couchdb._tcp")
                }
                discovery.type = entry.value
            case ("discovery", "databases"):
                discovery.databases = entry.value.trimmingBlanks() == "*" ? nil : Self.list(entry.value)
            case ("discovery", "sync"): discovery.sync = Self.list(entry.value)
            case ("discovery", "credentials"):
                // `name:password`, or a pairing URL (`settee pair`) whose userinfo holds them.
                let isURL = entry.value.contains("://")
                guard isURL ? URLComponents(string: entry.value)?.user != nil : entry.value.contains(":") else {
                    throw .invalidValue(origin: origin, value: "(hidden)", expected: "name:password, or a URL with credentials")
                }
                discovery.credentials = entry.value
            case ("discovery", "trust_advertised_fingerprint"):
                discovery.trustAdvertisedFingerprint = try Self.boolean(entry.value, origin: origin)
            case ("discovery", "topology"):
                guard let topology = DiscoveryConfiguration.Topology(rawValue: entry.value.trimmingBlanks()) else {
                    throw .invalidValue(origin: origin, value: entry.value, expected: "mesh or hub")
                }
                discovery.topology = topology
            case ("settee", "plain_http"): plainHTTP = try Self.boolean(entry.value, origin: origin)
            case ("ssl", "enable"): tls.enabled = try Self.boolean(entry.value, origin: origin)
            case ("ssl", "port"): tls.port = try Self.port(entry.value, origin: origin)
            case ("ssl", "cert_file"): tls.certificateFile = entry.value.isEmpty ? nil : entry.value
            case ("ssl", "key_file"): tls.keyFile = entry.value.isEmpty ? nil : entry.value
            case ("ssl", "handshake_timeout"): tls.handshakeTimeout = try Self.size(entry.value, origin: origin)
            case ("ssl", "verify_ssl_certificates"): tls.verifyClientCertificates = try Self.boolean(entry.value, origin: origin)
            case ("ssl", "cacert_file"): tls.clientCAFile = entry.value.isEmpty ? nil : entry.value
            case ("ssl", "fail_if_no_peer_cert"): tls.requireClientCertificate = try Self.boolean(entry.value, origin: origin)
            case ("admins", let name): fileAdmins[name] = entry.value
            case ("prometheus", "additional_port"): metrics.enabled = try Self.boolean(entry.value, origin: origin)
            case ("prometheus", "bind_address"): metrics.address = entry.value
            case ("prometheus", "port"): metrics.port = try Self.port(entry.value, origin: origin)
            default: try checkAppliedByServer(entry.section, entry.key, entry.value, origin: origin)
            }
        }
    }

    /// A setting the server applies from the file's settings (as its config API's: `[uuids]`,
    /// `[cors]`, `[chttpd] require_valid_user`...) is checked here by the one table
    /// (`ConfigKeys`); one it does not know is named in a warning and ignored.
    private mutating func checkAppliedByServer(_ section: String, _ key: String, _ value: String,
                                               origin: String) throws(ConfigError) {
        guard ConfigKeys.entry(section, key) != nil else {
            warnings.append("\(origin): unknown setting [\(section)] \(key), ignored")
            return
        }
        if let expected = ConfigKeys.expectation(section: section, key: key, value: value) {
            throw .invalidValue(origin: origin, value: value, expected: expected)
        }
    }

    mutating func apply(environment env: [String: String]) throws(ConfigError) {
        if let value = env["SETTEE_PORT"], !value.isEmpty { port = try Self.port(value, origin: "SETTEE_PORT") }
        if let value = env["SETTEE_BIND"], !value.isEmpty {
            bindAddresses = try Self.addresses(value, origin: "SETTEE_BIND")
        }
        if let value = env["SETTEE_DATA_DIR"], !value.isEmpty { dataDirectory = value }
        if let value = env["SETTEE_TLS_PORT"], !value.isEmpty {
            tls.port = try Self.port(value, origin: "SETTEE_TLS_PORT")
            tls.enabled = true
        }
        if let value = env["SETTEE_LOG_LEVEL"], !value.isEmpty {
            logLevel = try Self.level(value, origin: "SETTEE_LOG_LEVEL")
        }
        if let value = env["SETTEE_LOG_STREAM"], !value.isEmpty {
            logToStandardOutput = try Self.stream(value, origin: "SETTEE_LOG_STREAM")
        }
        // A secret file (a container's /run/secrets/...) holding `name:password`.
        var admin = env["SETTEE_ADMIN"]
        var adminOrigin = "SETTEE_ADMIN"
        if admin?.isEmpty ?? true, let path = env["SETTEE_ADMIN_FILE"], !path.isEmpty {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw .invalidValue(origin: "SETTEE_ADMIN_FILE", value: path, expected: "a readable file holding name:password")
            }
            admin = contents.trimmingBlanks()
            adminOrigin = "SETTEE_ADMIN_FILE"
        }
        if let value = admin, !value.isEmpty {
            // Split at the first ':' (names cannot hold one in CouchDB; passwords may).
            guard let colon = value.firstIndex(of: ":"), colon != value.startIndex,
                  value.index(after: colon) != value.endIndex else {
                throw .invalidValue(origin: adminOrigin, value: "(hidden)", expected: "name:password")
            }
            environmentAdmin = (String(value[..<colon]), String(value[value.index(after: colon)...]))
        }
    }

    mutating func apply(_ flags: ConfigOverrides) throws(ConfigError) {
        if let port = flags.port {
            guard (0...65535).contains(port) else {
                throw .invalidValue(origin: "--port", value: String(port), expected: "a port 0-65535")
            }
            self.port = port
        }
        if let bind = flags.bindAddress { bindAddresses = try Self.addresses(bind, origin: "--bind") }
        if let dir = flags.dataDirectory { dataDirectory = dir }
        if let level = flags.logLevel { logLevel = try Self.level(level, origin: "--log-level") }
    }

    /// Refuses HTTPS-only without HTTPS.
    /// - Throws: `ConfigError.invalidValue` when `[settee] plain_http = false` and `[ssl] enable` is not true.
    public func checkListeners() throws(ConfigError) {
        if !plainHTTP && !tls.enabled {
            throw .invalidValue(origin: "[settee] plain_http", value: "false", expected: "true unless [ssl] enable = true")
        }
    }

    /// Refuses a non-loopback address while no admin exists, before anything binds.
    /// - Throws: `ConfigError.adminRequired` naming the offending addresses.
    public func checkBindSafety() throws(ConfigError) {
        guard !hasAdmin else { return }
        let exposed = bindAddresses.filter { !LoopbackAddress.isLoopback($0) }
        if !exposed.isEmpty { throw .adminRequired(addresses: exposed) }
    }

    // MARK: - Value parsing

    static func port(_ text: String, origin: String) throws(ConfigError) -> Int {
        guard let port = Int(text), (0...65535).contains(port) else {
            throw .invalidValue(origin: origin, value: text, expected: "a port 0-65535")
        }
        return port
    }

    static func size(_ text: String, origin: String) throws(ConfigError) -> Int {
        guard let size = Int(text), size > 0 else {
            throw .invalidValue(origin: origin, value: text, expected: "a positive number of bytes")
        }
        return size
    }

    /// `true` or `false`, as CouchDB's `config:get_boolean` reads them.
    static func boolean(_ text: String, origin: String) throws(ConfigError) -> Bool {
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw .invalidValue(origin: origin, value: text, expected: "true or false")
        }
    }

    /// A comma-separated list, entries trimmed, empty ones dropped.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingBlanks() }.filter { !$0.isEmpty }
    }

    static func addresses(_ text: String, origin: String) throws(ConfigError) -> [String] {
        let list = text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        guard !list.isEmpty else { throw .invalidValue(origin: origin, value: text, expected: "an address") }
        return list
    }

    /// CouchDB's log levels, mapped onto swift-log's (which has no alert/emergency/none).
    /// `stderr` or `stdout`.
    static func stream(_ value: String, origin: String) throws(ConfigError) -> Bool {
        switch value.lowercased() {
        case "stdout": return true
        case "stderr": return false
        default: throw .invalidValue(origin: origin, value: value, expected: "stderr or stdout")
        }
    }

    static func level(_ text: String, origin: String) throws(ConfigError) -> Logger.Level {
        switch text.lowercased() {
        case "trace": .trace
        case "debug": .debug
        case "info": .info
        case "notice": .notice
        case "warning", "warn": .warning
        case "error", "err": .error
        case "critical", "crit", "alert", "emergency", "none": .critical
        default: throw .invalidValue(origin: origin, value: text, expected: "debug, info, notice, warning, error or critical")
        }
    }
}
