internal import FoundationEssentials
internal import SetteeHTTP
internal import SetteeReplicator
public import SetteeServer

/// How the executable reads, at start, each key of the one table (`ConfigKeys`) that it
/// needs before the server runs: listeners, the data directory, TLS, discovery, logging,
/// store limits. The row's check has passed by then; a loader converts the text and may
/// refuse shapes a check cannot see. Keys the server applies itself (their row's `effect`:
/// `[uuids]`, `[cors]`, sessions, lockout...) have no loader: they reach it through
/// `NodeConfiguration.configSettings`. `SetteeConfigurationTests` checks that every loader
/// names a row of the table.
extension SetteeConfiguration {
    /// Throws `ConfigError` only (closures cannot declare a typed throw by inference).
    typealias Loader = @Sendable (inout SetteeConfiguration, _ value: String, _ origin: String) throws -> Void

    static let loaders: [String: [String: Loader]] = [
        "chttpd": [
            "bind_address": { $0.bindAddresses = try addresses($1, origin: $2) },
            "port": { $0.port = try port($1, origin: $2) },
            "max_http_request_size": { $0.maxHTTPRequestSize = try size($1, origin: $2) },
            "admin_only_all_dbs": { $0.adminOnlyAllDatabases = try boolean($1, origin: $2) },
        ],
        "couchdb": couchdbLoaders,
        "chttpd_auth": [
            "secret": { config, value, _ in config.secret = value.isEmpty ? nil : value },
            "iterations": { $0.passwordIterations = try size($1, origin: $2) },
        ],
        "attachments": [
            "compressible_types": { config, value, _ in
                config.compressibleTypes = value.split(separator: ",").map { $0.trimmingBlanks() }
            },
            "inline_max_bytes": { $0.inlineAttachmentLimit = try count($1, origin: $2, expected: "a number of bytes (0: none)") },
        ],
        "log": [
            "level": { $0.logLevel = try level($1, origin: $2) },
            "stream": { $0.logToStandardOutput = try stream($1, origin: $2) },
        ],
        "settee": [
            "reader_mmap_size": { $0.readerMmapSize = try count($1, origin: $2, expected: "a number of bytes (0: off)") },
            "document_cache_size": { $0.documentCacheSize = try count($1, origin: $2, expected: "a number of bytes (0: off)") },
            "plain_http": { $0.plainHTTP = try boolean($1, origin: $2) },
            "max_connections": { config, value, origin throws(ConfigError) in
                guard let count = Int(value), count >= 1 else {
                    throw .invalidValue(origin: origin, value: value, expected: "a number of connections, at least 1")
                }
                config.maxConnections = count
            },
        ],
        "ssl": sslLoaders,
        "discovery": discoveryLoaders,
        "prometheus": [
            "additional_port": { $0.metrics.enabled = try boolean($1, origin: $2) },
            "bind_address": { config, value, _ in config.metrics.address = value },
            "port": { $0.metrics.port = try port($1, origin: $2) },
        ],
    ]

    private static let couchdbLoaders: [String: Loader] = [
        "single_node": { $0.singleNode = try boolean($1, origin: $2) },
        "users_db_security_editable": { $0.usersDatabaseSecurityEditable = try boolean($1, origin: $2) },
        "database_dir": { config, value, _ in config.dataDirectory = value },
        // The replicator's limit is fixed at start; the server applies later changes live.
        "max_document_size": { $0.maxDocumentSize = try size($1, origin: $2) },
        "max_dbs_open": { config, value, origin throws(ConfigError) in
            guard let count = Int(value), count >= 1 else {
                throw .invalidValue(origin: origin, value: value, expected: "a number of databases, at least 1")
            }
            config.maxOpenDatabases = count
        },
        "uuid": { config, value, _ in config.uuid = value.isEmpty ? nil : value },
        "default_security": { config, value, origin throws(ConfigError) in
            guard ["admin_only", "everyone"].contains(value) else {
                throw .invalidValue(origin: origin, value: value, expected: "admin_only or everyone")
            }
            config.defaultSecurityIsAdminOnly = value == "admin_only"
        },
    ]

    private static let sslLoaders: [String: Loader] = [
        "enable": { $0.tls.enabled = try boolean($1, origin: $2) },
        "port": { $0.tls.port = try port($1, origin: $2) },
        "cert_file": { config, value, _ in config.tls.certificateFile = value.isEmpty ? nil : value },
        "key_file": { config, value, _ in config.tls.keyFile = value.isEmpty ? nil : value },
        "handshake_timeout": { $0.tls.handshakeTimeout = try size($1, origin: $2) },
        "verify_ssl_certificates": { $0.tls.verifyClientCertificates = try boolean($1, origin: $2) },
        "cacert_file": { config, value, _ in config.tls.clientCAFile = value.isEmpty ? nil : value },
        "fail_if_no_peer_cert": { $0.tls.requireClientCertificate = try boolean($1, origin: $2) },
        "record_layer": { config, value, origin throws(ConfigError) in
            guard let layer = TLSRecordLayer(rawValue: value) else {
                throw .invalidValue(origin: origin, value: value, expected: TLSRecordLayer.expectation)
            }
            config.tls.recordLayer = layer
        },
    ]

    private static let discoveryLoaders: [String: Loader] = [
        "enabled": { $0.discovery.enabled = try boolean($1, origin: $2) },
        "name": { config, value, _ in config.discovery.instanceName = value.isEmpty ? nil : value },
        "type": { config, value, origin throws(ConfigError) in
            guard value.hasPrefix("_"), value.hasSuffix("._tcp") || value.hasSuffix("._udp") else {
                throw .invalidValue(origin: origin, value: value, expected: "a DNS-SD type such as _couchdb._tcp")
            }
            config.discovery.type = value
        },
        "databases": { config, value, _ in config.discovery.databases = value.trimmingBlanks() == "*" ? nil : list(value) },
        "sync": { config, value, _ in config.discovery.sync = list(value) },
        "credentials": { config, value, origin throws(ConfigError) in
            // `name:password`, or a pairing URL (`settee pair`) whose userinfo holds them.
            let isURL = value.contains("://")
            guard isURL ? URLComponents(string: value)?.user != nil : value.contains(":") else {
                throw .invalidValue(origin: origin, value: "(hidden)", expected: "name:password, or a URL with credentials")
            }
            config.discovery.credentials = value
        },
        "trust_advertised_fingerprint": { $0.discovery.trustAdvertisedFingerprint = try boolean($1, origin: $2) },
        "topology": { config, value, origin throws(ConfigError) in
            guard let topology = DiscoveryConfiguration.Topology(rawValue: value.trimmingBlanks()) else {
                throw .invalidValue(origin: origin, value: value, expected: "mesh, pull or hub")
            }
            config.discovery.topology = topology
        },
    ]

    /// A whole number of at least 0.
    static func count(_ text: String, origin: String, expected: String) throws(ConfigError) -> Int {
        guard let number = Int(text), number >= 0 else { throw .invalidValue(origin: origin, value: text, expected: expected) }
        return number
    }
}
