/*
 The executable's settings, gathered from four layers. Precedence, highest first:

   command-line flag  >  environment (SETTEE_*)  >  ini file  >  built-in default

 The ini file is `--config PATH`, else `$SETTEE_CONFIG`, else none. Every key, and the
 `SETTEE_*` variable that may set it, is a row of SetteeServer's `ConfigKeys`, the one
 table of settings: a value from the file, the environment or a flag goes through the
 same path (`apply(_:origin:)`): the row's check, then, for a key the executable reads at
 start, its loader here (`loaders`); a key the running server applies (its row's effect)
 reaches it through `NodeConfiguration.configSettings`, with the values given outside the
 file (`overrides`) over the file's. The variables (see README "Configuration"):

   SETTEE_PORT       [chttpd] port            SETTEE_BIND       [chttpd] bind_address
   SETTEE_DATA_DIR   [couchdb] database_dir   SETTEE_TLS_PORT   [ssl] port, and enable = true
   SETTEE_LOG_LEVEL  [log] level              SETTEE_LOG_STREAM [log] stream

 Anything else in the file is reported as one warning per setting and ignored, so a
 CouchDB local.ini can be reused. `SETTEE_ADMIN=name:password` (or `SETTEE_ADMIN_FILE`
 naming a file that holds it) adds one admin on top of `[admins]`; it is hashed in memory
 only, never written anywhere. `SETTEE_CONFIG` names the file itself.
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
    /// `[couchdb] users_db_security_editable`: whether `_users`' `_security` may change.
    public var usersDatabaseSecurityEditable = false
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
    /// `[chttpd_auth] iterations` for new password hashes; CouchDB 3.4.3's default when unset.
    public var passwordIterations: Int?
    /// `[attachments] compressible_types`, when set: comma-separated patterns such as `text/*`.
    public var compressibleTypes: [String]?
    /// `[attachments] inline_max_bytes`, when set: attachments up to this size are rows of the blob directory's `small.sqlite`.
    public var inlineAttachmentLimit: Int?
    /// `[settee] reader_mmap_size`, when set: bytes of each database file a reader maps.
    public var readerMmapSize: Int?
    /// `[settee] document_cache_size`, when set: bytes of documents' winners kept in memory over all databases.
    public var documentCacheSize: Int?
    /// `[couchdb] max_dbs_open`, when set: user databases open at once.
    public var maxOpenDatabases: Int?
    /// `[ssl]`: HTTPS beside (or, with `[settee] plain_http = false`, instead of) HTTP.
    public var tls = TLSSettings()
    /// `[discovery]`: DNS-SD publishing, browsing and sync with peers.
    public var discovery = DiscoveryConfiguration()
    /// `[prometheus] additional_port, bind_address, port` (CouchDB's defaults: off,
    /// 127.0.0.1, 17986): metrics without credentials on a listener of their own.
    public var metrics: (enabled: Bool, address: String, port: Int) = (false, "127.0.0.1", 17986)
    /// `[settee] max_connections`, when set: client connections open at once (HTTP and HTTPS).
    public var maxConnections: Int?
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
    /// The settings given outside the file (environment, then flags), in the order given:
    /// the server shows them in `_config` over the file's (`NodeConfiguration.configOverrides`).
    public var overrides: [ConfigSetting] = []

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
            let setting = ConfigSetting(section: entry.section, key: entry.key, value: entry.value)
            try apply(setting, origin: "\(file.source):\(entry.line)")
        }
    }

    /// One setting, from wherever it came (`origin`: `file:line`, a variable, a flag): `[admins]`
    /// by name; a key of the one table (`ConfigKeys`) checked by its row, then loaded here if the
    /// executable reads it at start (`loaders`); any other key named in a warning and ignored.
    /// - Throws: `ConfigError.invalidValue` naming `origin`.
    mutating func apply(_ setting: ConfigSetting, origin: String) throws(ConfigError) {
        if setting.section == "admins" { return fileAdmins[setting.key] = setting.value }
        guard ConfigKeys.entry(setting.section, setting.key) != nil else {
            warnings.append("\(origin): unknown setting [\(setting.section)] \(setting.key), ignored")
            return
        }
        if let expected = ConfigKeys.expectation(section: setting.section, key: setting.key, value: setting.value) {
            throw .invalidValue(origin: origin, value: setting.value, expected: expected)
        }
        guard let load = Self.loaders[setting.section]?[setting.key] else { return }
        do { try load(&self, setting.value, origin) } catch {
            throw (error as? ConfigError) ?? .invalidValue(origin: origin, value: setting.value, expected: "\(error)")
        }
    }

    /// A setting given outside the file: applied as the file's are, and kept for the server.
    private mutating func override(_ setting: ConfigSetting, origin: String) throws(ConfigError) {
        try apply(setting, origin: origin)
        overrides.append(setting)
    }

    /// The table's variables (`ConfigKeys`, each row's `environment`), then the admin.
    mutating func apply(environment env: [String: String]) throws(ConfigError) {
        for (setting, origin) in ConfigKeys.settings(fromEnvironment: env) { try override(setting, origin: origin) }
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

    /// Each flag is its key's setting, applied as the file's and the environment's are.
    mutating func apply(_ flags: ConfigOverrides) throws(ConfigError) {
        let given: [(String, String, String, String?)] = [
            ("--port", "chttpd", "port", flags.port.map(String.init)),
            ("--bind", "chttpd", "bind_address", flags.bindAddress),
            ("--data-dir", "couchdb", "database_dir", flags.dataDirectory),
            ("--log-level", "log", "level", flags.logLevel),
        ]
        for case let (flag, section, key, value?) in given {
            try override(ConfigSetting(section: section, key: key, value: value), origin: flag)
        }
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
