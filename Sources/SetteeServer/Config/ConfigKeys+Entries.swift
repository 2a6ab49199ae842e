internal import SetteeViews

/// The rows of `ConfigKeys`, by area. Defaults are CouchDB 3.4.3's default.ini unless noted.
extension ConfigKeys {
    static let listeners: [ConfigKey] = [
        ConfigKey("chttpd", "bind_address", .startOnly, default: "127.0.0.1"),
        ConfigKey("chttpd", "port", .startOnly, default: "5984"),
        ConfigKey("httpd", "bind_address", .startOnly),
        ConfigKey("httpd", "port", .startOnly),
        ConfigKey("ssl", "enable", .startOnly, default: "false"),
        ConfigKey("ssl", "port", .startOnly, default: "6984"),
        ConfigKey("ssl", "cert_file", .startOnly),
        ConfigKey("ssl", "key_file", .startOnly),
        ConfigKey("ssl", "handshake_timeout", .startOnly),
        ConfigKey("ssl", "verify_ssl_certificates", .startOnly, default: "false"),
        ConfigKey("ssl", "cacert_file", .startOnly),
        ConfigKey("ssl", "fail_if_no_peer_cert", .startOnly, default: "false"),
        ConfigKey("prometheus", "additional_port", .startOnly, default: "false"),
        ConfigKey("prometheus", "bind_address", .startOnly, default: "127.0.0.1"),
        ConfigKey("prometheus", "port", .startOnly, default: "17986"),
    ]

    static let couchdb: [ConfigKey] = [
        ConfigKey("couchdb", "database_dir", .startOnly, default: "./data"),
        ConfigKey("couchdb", "max_document_size", .live, default: "8000000", positive),
        ConfigKey("couchdb", "uuid", .startOnly),
        ConfigKey("couchdb", "default_security", .atStart, default: "admin_only"),
        ConfigKey("couchdb", "single_node", .startOnly, default: "true"),
        ConfigKey("couchdb", "users_db_security_editable", .atStart, default: "false"),
        ConfigKey("couchdb", "os_process_timeout", .live, default: "5000", positive),
        // Fitted to the descriptor limit at start-up (DescriptorBudget).
        ConfigKey("couchdb", "max_dbs_open", .startOnly, default: "500"),
        ConfigKey("quickjs", "memory_limit_bytes", .live, positive),
        ConfigKey("query_server_config", "reduce_limit", .live, default: "true") {
            JavaScriptLimits.ReduceLimit(rawValue: $0.lowercased()) != nil ? nil : "true, false or log"
        },
        ConfigKey("attachments", "compressible_types", .atStart),
        ConfigKey("attachments", "inline_max_bytes", .atStart),
        ConfigKey("uuids", "algorithm", .live, default: "sequential") {
            UUIDGenerator.Algorithm(rawValue: $0) != nil
                ? nil : "one of " + UUIDGenerator.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
        },
        ConfigKey("uuids", "utc_id_suffix", .live, default: ""),
        ConfigKey("uuids", "max_count", .live, default: "1000", positive),
        ConfigKey("log", "level", .live, default: "info") {
            logLevels.contains($0.lowercased()) ? nil : "a log level such as debug, info or warning"
        },
        ConfigKey("log", "stream", .atStart, default: "stderr"),
    ]

    static let auth: [ConfigKey] = [
        ConfigKey("chttpd_auth", "secret", .startOnly),
        ConfigKey("chttpd_auth", "timeout", .live, default: "600", positive),
        ConfigKey("chttpd_auth", "allow_persistent_cookies", .live, default: "true", boolean),
        ConfigKey("chttpd_auth", "iterations", .atStart, default: "600000"),
        ConfigKey("chttpd_auth", "authentication_db", .live, default: "_users"),
        ConfigKey("chttpd_auth", "password_regexp", .live),
        // CouchDB 3's old name of [chttpd_auth], still read for these (couch_httpd_auth).
        ConfigKey("couch_httpd_auth", "timeout", .live, positive),
        ConfigKey("couch_httpd_auth", "authentication_db", .live),
        ConfigKey("couch_httpd_auth", "password_regexp", .live),
        ConfigKey("chttpd_auth_lockout", "mode", .live, default: "enforce") {
            LoginLockout.Mode(rawValue: $0) != nil ? nil : "off, warn or enforce"
        },
        ConfigKey("chttpd_auth_lockout", "threshold", .live, default: "5", positive),
        ConfigKey("chttpd_auth_lockout", "max_lifetime", .live, default: "300000", atLeastZero("a number of milliseconds")),
    ]

    static let http: [ConfigKey] = [
        ConfigKey("chttpd", "max_http_request_size", .atStart, default: "4294967296"),
        ConfigKey("chttpd", "x_forwarded_host", .live, default: "X-Forwarded-Host"),
        ConfigKey("chttpd", "admin_only_all_dbs", .atStart, default: "true"),
        ConfigKey("chttpd", "require_valid_user", .live, default: "false", boolean),
        ConfigKey("chttpd", "require_valid_user_except_for_up", .live, default: "false", boolean),
        ConfigKey("chttpd", "decode_plus_to_space", .live, default: "true", boolean),
        ConfigKey("chttpd", "enable_cors", .live, default: "false", boolean),
        ConfigKey("chttpd", "allow_jsonp", .live, default: "false", boolean),
        ConfigKey("cors", "origins", .live),
        ConfigKey("cors", "credentials", .live, default: "false", boolean),
        ConfigKey("cors", "methods", .live),
        ConfigKey("cors", "headers", .live),
        ConfigKey("cors", "exposed_headers", .live),
        ConfigKey("cors", "max_age", .live, default: "600", atLeastZero("a number of seconds")),
    ]

    /// Settee's own sections.
    static let settee: [ConfigKey] = [
        ConfigKey("settee", "reader_mmap_size", .startOnly),
        ConfigKey("settee", "plain_http", .startOnly, default: "true"),
        ConfigKey("settee", "javascript_threads", .startOnly),
        ConfigKey("settee", "javascript_queue", .startOnly),
    ] + ["enabled", "name", "type", "databases", "sync", "credentials", "trust_advertised_fingerprint", "topology"]
        .map { ConfigKey("discovery", $0, .startOnly) }
}
