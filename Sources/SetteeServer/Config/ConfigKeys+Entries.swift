internal import SetteeHTTP
internal import SetteeViews

/// The rows of `ConfigKeys`, by area. Defaults are CouchDB 3.4.3's default.ini unless noted.
/// A row with an `effect` is applied by the running server (at start, and live when its
/// timing is `.live`); the others are read when Settee starts (the executable's
/// `SetteeConfiguration`, or the server from the start-up settings).
extension ConfigKeys {
    static let listeners: [ConfigKey] = [
        ConfigKey("chttpd", "bind_address", .startOnly, default: "127.0.0.1", env: "SETTEE_BIND"),
        ConfigKey("chttpd", "port", .startOnly, default: "5984", env: "SETTEE_PORT"),
        ConfigKey("httpd", "bind_address", .startOnly),
        ConfigKey("httpd", "port", .startOnly),
        ConfigKey("ssl", "enable", .startOnly, default: "false"),
        ConfigKey("ssl", "port", .startOnly, default: "6984", env: "SETTEE_TLS_PORT",
                  implies: [ConfigSetting(section: "ssl", key: "enable", value: "true")]),
        ConfigKey("ssl", "cert_file", .startOnly),
        ConfigKey("ssl", "key_file", .startOnly),
        ConfigKey("ssl", "handshake_timeout", .startOnly),
        ConfigKey("ssl", "verify_ssl_certificates", .startOnly, default: "false"),
        ConfigKey("ssl", "cacert_file", .startOnly),
        ConfigKey("ssl", "fail_if_no_peer_cert", .startOnly, default: "false"),
        // Settee's own: which record layer carries TLS 1.3 AES-GCM sessions (TLSRecordLayer).
        ConfigKey("ssl", "record_layer", .startOnly, default: "settee", check: {
            TLSRecordLayer(rawValue: $0) != nil ? nil : TLSRecordLayer.expectation
        }),
        ConfigKey("prometheus", "additional_port", .startOnly, default: "false"),
        ConfigKey("prometheus", "bind_address", .startOnly, default: "127.0.0.1"),
        ConfigKey("prometheus", "port", .startOnly, default: "17986"),
    ]

    static let couchdb: [ConfigKey] = [
        ConfigKey("couchdb", "database_dir", .startOnly, default: "./data", env: "SETTEE_DATA_DIR"),
        // Also read at start, for the replicator's limit (`ReplicationManager`).
        ConfigKey("couchdb", "max_document_size", .live, default: "8000000", check: positive) {
            $0.live.maxDocumentSize.set($1.flatMap { Int($0) } ?? 8_000_000)
        },
        ConfigKey("couchdb", "uuid", .startOnly),
        ConfigKey("couchdb", "default_security", .atStart, default: "admin_only"),
        ConfigKey("couchdb", "single_node", .startOnly, default: "true"),
        ConfigKey("couchdb", "users_db_security_editable", .atStart, default: "false"),
        // Design document functions' limits: CouchDB's query server timeout (ms) and its
        // JavaScript engine's memory limit, read by each call as it starts (this node's only).
        ConfigKey("couchdb", "os_process_timeout", .live, default: "5000", check: positive) {
            $0.javaScriptLimits.value.time = $1.flatMap(Double.init).map { $0 / 1000 } ?? JavaScriptLimits().time
        },
        // Fitted to the descriptor limit at start-up (DescriptorBudget).
        ConfigKey("couchdb", "max_dbs_open", .startOnly, default: "500"),
        ConfigKey("quickjs", "memory_limit_bytes", .live, check: positive) {
            $0.javaScriptLimits.value.memoryBytes = $1.flatMap { Int($0) } ?? JavaScriptLimits().memoryBytes
        },
        ConfigKey("query_server_config", "reduce_limit", .live, default: "true", check: {
            JavaScriptLimits.ReduceLimit(rawValue: $0.lowercased()) != nil ? nil : "true, false or log"
        }) {
            $0.javaScriptLimits.value.reduceLimit = $1.flatMap { JavaScriptLimits.ReduceLimit(rawValue: $0.lowercased()) } ?? .on
        },
        ConfigKey("attachments", "compressible_types", .atStart),
        ConfigKey("attachments", "inline_max_bytes", .atStart),
        ConfigKey("uuids", "algorithm", .live, default: "sequential", check: {
            UUIDGenerator.Algorithm(rawValue: $0) != nil
                ? nil : "one of " + UUIDGenerator.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
        }) {
            $0.live.uuids.configure(algorithm: $1.flatMap(UUIDGenerator.Algorithm.init(rawValue:)) ?? .sequential)
        },
        ConfigKey("uuids", "utc_id_suffix", .live, default: "", effect: { $0.live.uuids.configure(utcIDSuffix: $1 ?? "") }),
        ConfigKey("uuids", "max_count", .live, default: "1000", check: positive) {
            $0.live.uuidsMaxCount.set($1.flatMap { Int($0) } ?? 1000)
        },
        // Also read at start by the executable, which owns logging.
        ConfigKey("log", "level", .live, default: "info", env: "SETTEE_LOG_LEVEL", check: {
            logLevels.contains($0.lowercased()) ? nil : "a log level such as debug, info or warning"
        }) {
            _ = $0.setLogLevel($1 ?? "info")
        },
        ConfigKey("log", "stream", .atStart, default: "stderr", env: "SETTEE_LOG_STREAM"),
    ]

    /// Settee's own sections.
    static let settee: [ConfigKey] = [
        ConfigKey("settee", "reader_mmap_size", .startOnly),
        ConfigKey("settee", "document_cache_size", .startOnly),
        ConfigKey("settee", "plain_http", .startOnly, default: "true"),
        // Fitted to the descriptor limit at start-up (DescriptorBudget), as max_dbs_open is.
        ConfigKey("settee", "max_connections", .startOnly, default: "12000"),
        ConfigKey("settee", "javascript_threads", .startOnly),
        ConfigKey("settee", "javascript_queue", .startOnly),
    ] + ["enabled", "name", "type", "databases", "sync", "credentials", "trust_advertised_fingerprint", "topology"]
        .map { ConfigKey("discovery", $0, .startOnly) }
}
