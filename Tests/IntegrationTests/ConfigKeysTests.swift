import Foundation
@testable import SetteeConfig
@testable import SetteeServer
import Testing

/// The one table of settings (`ConfigKeys`) against what CouchDB documents: every key
/// CouchDB 3.4.3's default.ini names (set or commented out, with its default value) in the
/// sections Settee implements either loads from an ini file or is refused by name (a
/// warning naming it); none stops the server from starting (issue 40, item 11).
@Suite struct ConfigKeysTests {
    /// From CouchDB 3.4.3 rel/overlay/etc/default.ini, sections [couchdb], [chttpd],
    /// [chttpd_auth], [httpd], [ssl], [cors], [uuids], [log], [query_server_config],
    /// [quickjs], [replicator], [attachments]: `[section] key = default` (templated values,
    /// `{{...}}`, given a value of their kind; inline comments dropped).
    static let couchDBDefaults = """
[couchdb] uuid = 0123456789abcdef0123456789abcdef
[couchdb] database_dir = ./data
[couchdb] view_index_dir = ./data
[couchdb] util_driver_dir = 
[couchdb] plugin_dir = 
[couchdb] os_process_timeout = 5000
[couchdb] max_dbs_open = 500
[couchdb] file_compression = snappy
[couchdb] attachment_stream_buffer_size = 4096
[couchdb] default_security = admin_only
[couchdb] btree_chunk_size = 1279
[couchdb] maintenance_mode = false
[couchdb] stem_interactive_updates = true
[couchdb] uri_file = 
[couchdb] changes_doc_ids_optimization_threshold = 1000
[couchdb] max_document_id_length = infinity
[couchdb] max_document_size = 8000000
[couchdb] max_attachment_size = 1073741824
[couchdb] update_lru_on_read = false
[couchdb] default_engine = couch
[couchdb] enable_database_recovery = false
[couchdb] max_partition_size = 10737418240
[couchdb] single_node = false
[couchdb] users_db_security_editable = false
[couchdb] attachment_writer_timeout = 300000
[couchdb] compaction_log_level = info
[couchdb] write_xxhash_checksums = false
[couchdb] js_engine = spidermonkey
[chttpd] port = 5984
[chttpd] bind_address = 127.0.0.1
[chttpd] backlog = 512
[chttpd] socket_options = [{sndbuf, 262144}, {nodelay, true}]
[chttpd] server_options = [{recbuf, undefined}]
[chttpd] require_valid_user = false
[chttpd] require_valid_user_except_for_up = false
[chttpd] prefer_minimal = Cache-Control, Content-Length, Content-Range, Content-Type, ETag, Server, Transfer-Encoding, Vary
[chttpd] max_db_number_for_dbs_info_req = 100
[chttpd] buffer_response = false
[chttpd] authentication_handlers = {chttpd_auth, cookie_authentication_handler}, {chttpd_auth, default_authentication_handler}
[chttpd] admin_only_all_dbs = true
[chttpd] secure_rewrites = true
[chttpd] allow_jsonp = false
[chttpd] enable_cors = false
[chttpd] enable_xframe_options = false
[chttpd] max_uri_length = 8000
[chttpd] changes_timeout = 60000
[chttpd] config_whitelist = 
[chttpd] rewrite_limit = 100
[chttpd] x_forwarded_host = X-Forwarded-Host
[chttpd] x_forwarded_proto = X-Forwarded-Proto
[chttpd] x_forwarded_ssl = X-Forwarded-Ssl
[chttpd] max_http_request_size = 4294967296
[chttpd] decode_plus_to_space = true
[chttpd] bulk_get_use_batches = true
[chttpd] server_header_versions = true
[chttpd] disconnect_check_msec = 30000
[chttpd] disconnect_check_jitter_msec = 15000
[chttpd] scrub_json_request = true
[chttpd_auth] authentication_db = _users
[chttpd_auth] authentication_redirect = /_utils/session.html
[chttpd_auth] timeout = 600
[chttpd_auth] auth_cache_size = 50
[chttpd_auth] allow_persistent_cookies = true
[chttpd_auth] iterations = 600000
[chttpd_auth] min_iterations = 1
[chttpd_auth] max_iterations = 1000000000
[chttpd_auth] password_scheme = pbkdf2
[chttpd_auth] pbkdf2_prf = sha256
[chttpd_auth] upgrade_hash_on_auth = false
[chttpd_auth] password_regexp = []
[chttpd_auth] proxy_use_secret = false
[chttpd_auth] public_fields = 
[chttpd_auth] secret = 
[chttpd_auth] users_db_public = false
[chttpd_auth] cookie_domain = example.com
[chttpd_auth] same_site = 
[chttpd_auth] hash_algorithms = sha256, sha
[httpd] port = 5984
[httpd] bind_address = 127.0.0.1
[httpd] authentication_handlers = {couch_httpd_auth, cookie_authentication_handler}, {couch_httpd_auth, default_authentication_handler}
[httpd] server_options = [{backlog, 128}, {acceptor_pool_size, 16}]
[httpd] socket_options = [{recbuf, undefined}, {sndbuf, 262144}, {nodelay, true}]
[ssl] port = 6984
[cors] credentials = false
[cors] origins = *
[cors] headers = 
[cors] methods = 
[uuids] algorithm = sequential
[uuids] utc_id_suffix = 
[uuids] max_count = 1000
[log] level = info
[log] max_message_size = 16000
[log] strip_last_msg = true
[log] filter_fields = [pid, registered_name, error_info, messages]
[log] writer = stderr
[log] file = ./couch.log
[log] write_buffer = 0
[log] write_delay = 0
[log] syslog_host = 
[log] syslog_port = 514
[log] syslog_appid = couchdb
[log] syslog_facility = local2
[query_server_config] commit_freq = 5
[query_server_config] reduce_limit = true
[query_server_config] os_process_limit = 100
[query_server_config] os_process_idle_limit = 300
[query_server_config] os_process_soft_limit = 100
[query_server_config] group_info_timeout = 5000
[query_server_config] query_limit = 268435456
[query_server_config] partition_query_limit = 268435456
[query_server_config] db_tag = name
[quickjs] memory_limit_bytes = 67108864
[replicator] startup_jitter = 5000
[replicator] max_jobs = 500
[replicator] interval = 60000
[replicator] max_churn = 20
[replicator] worker_processes = 4
[replicator] worker_batch_size = 500
[replicator] http_connections = 20
[replicator] connection_timeout = 30000
[replicator] request_timeout = infinity
[replicator] retries_per_request = 5
[replicator] use_checkpoints = true
[replicator] use_bulk_get = true
[replicator] checkpoint_interval = 30000
[replicator] socket_options = [{keepalive, true}, {nodelay, false}]
[replicator] valid_socket_options = buffer,keepalive,nodelay,priority,recbuf,sndbuf
[replicator] valid_endpoint_protocols = http,https
[replicator] valid_endpoint_protocols_log = false
[replicator] verify_ssl_certificates_log = false
[replicator] valid_proxy_protocols = http,https,socks5
[replicator] cert_file = /full/path/to/server_cert.pem
[replicator] key_file = /full/path/to/server_key.pem
[replicator] password = somepassword
[replicator] verify_ssl_certificates = false
[replicator] ssl_trusted_certificates_file = /etc/ssl/certs/ca-certificates.crt
[replicator] ssl_certificate_max_depth = 3
[replicator] max_document_id_length = infinity
[replicator] missing_doc_retry_msec = 2000
[replicator] cluster_start_period = 5
[replicator] auth_plugins = couch_replicator_auth_session,couch_replicator_auth_noop
[replicator] session_refresh_interval_sec = 550
[replicator] usage_coeff = 0.5
[replicator] priority_coeff = 0.98
[attachments] compression_level = 8
[attachments] compressible_types = text/*, application/javascript, application/json, application/xml
"""

    struct Setting: Sendable, CustomTestStringConvertible {
        let section: String
        let key: String
        let value: String
        var testDescription: String { "[\(section)] \(key) = \(value)" }
    }

    static let couchDBSettings: [Setting] = couchDBDefaults.split(separator: "\n").compactMap { line in
        guard let close = line.firstIndex(of: "]"), let equals = line.firstIndex(of: "=") else { return nil }
        let section = String(line[line.index(after: line.startIndex)..<close])
        let key = line[line.index(after: close)..<equals].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        return Setting(section: section, key: key, value: value)
    }

    static func load(_ setting: Setting) throws -> SetteeConfiguration {
        var config = SetteeConfiguration()
        try config.apply(INIFile(text: "[\(setting.section)]\n\(setting.key) = \(setting.value)\n", source: "t.ini"))
        return config
    }

    @Test func theListIsCouchDBsWhole() {
        #expect(Self.couchDBSettings.count == 146)
    }

    @Test(arguments: couchDBSettings)
    func everyCouchDBKeyLoadsOrIsRefusedByName(setting: Setting) throws {
        let config = try Self.load(setting)
        if ConfigKeys.entry(setting.section, setting.key) != nil {
            #expect(config.warnings.isEmpty, "\(config.warnings)")
        } else {
            #expect(config.warnings.count == 1)
            #expect(config.warnings.first?.contains("unknown setting [\(setting.section)] \(setting.key), ignored") == true)
        }
    }

    /// Every row's default loads as it is, with no warning: the table and the loader agree.
    @Test(arguments: ConfigKeys.all.filter { $0.defaultValue != nil }.map {
        Setting(section: $0.section, key: $0.key, value: $0.defaultValue ?? "")
    })
    func everyDefaultOfTheTableLoads(setting: Setting) throws {
        #expect(try Self.load(setting).warnings.isEmpty)
        #expect(ConfigKeys.expectation(section: setting.section, key: setting.key, value: setting.value) == nil)
    }

    /// `_config` refuses exactly the start-only keys, and every key of a start-only section.
    @Test func configAPIRefusesStartOnlyKeysByTheTable() {
        for entry in ConfigKeys.all {
            let refused = (try? ConfigEffects.checkWritable(section: entry.section, key: entry.key)) == nil
            #expect(refused == (entry.timing == .startOnly || ConfigKeys.startOnlySections.contains(entry.section)),
                    "[\(entry.section)] \(entry.key)")
        }
    }

    /// A value for each row that names a `SETTEE_*` variable; a row added with one must be
    /// added here too (the first test says so).
    static let environmentSamples: [String: String] = [
        "SETTEE_PORT": "7011", "SETTEE_BIND": "127.0.0.3", "SETTEE_DATA_DIR": "/from/somewhere",
        "SETTEE_TLS_PORT": "7443", "SETTEE_LOG_LEVEL": "debug", "SETTEE_LOG_STREAM": "stdout",
    ]

    /// What the executable made of its settings, for comparing two ways of giving one.
    static func fingerprint(_ config: SetteeConfiguration) -> String {
        "\(config.port) \(config.bindAddresses) \(config.dataDirectory) \(config.tls.port) \(config.logLevel) "
            + "\(config.logToStandardOutput) \(config.warnings)"
    }

    /// A key declared once loads the same from the ini file and from its variable: the same
    /// check (a bad value refused with the same expectation, naming where it came from) and
    /// the same loader; the variable's value is kept for the server (`overrides`).
    @Test func everyVariableLoadsAsItsKeyDoesFromTheFile() throws {
        let rows = ConfigKeys.all.filter { $0.environment != nil }
        #expect(Set(rows.compactMap(\.environment)) == Set(Self.environmentSamples.keys))
        for row in rows {
            let name = try #require(row.environment), value = try #require(Self.environmentSamples[name])
            let fromFile = try Self.load(Setting(section: row.section, key: row.key, value: value))
            var fromEnvironment = SetteeConfiguration()
            try fromEnvironment.apply(environment: [name: value])
            #expect(Self.fingerprint(fromFile) == Self.fingerprint(fromEnvironment), "\(name)")
            #expect(fromEnvironment.overrides.contains(ConfigSetting(section: row.section, key: row.key, value: value)))
            #expect(fromFile.overrides.isEmpty)
            // A bad value: refused the same way (or taken the same way, for a free-form one).
            let bad = "no§such"
            let fileRefusal = Self.refusal { _ = try Self.load(Setting(section: row.section, key: row.key, value: bad)) }
            let environmentRefusal = Self.refusal {
                var config = SetteeConfiguration()
                try config.apply(environment: [name: bad])
            }
            #expect(fileRefusal?.origin == (environmentRefusal == nil ? nil : "t.ini:2"), "\(name)")
            #expect(environmentRefusal?.origin == (fileRefusal == nil ? nil : name), "\(name)")
            #expect(fileRefusal?.expected == environmentRefusal?.expected, "\(name)")
        }
    }

    static func refusal(_ body: () throws -> Void) -> (origin: String, expected: String)? {
        do { try body() } catch ConfigError.invalidValue(let origin, _, let expected) { return (origin, expected) } catch {
            Issue.record("unexpected \(error)")
        }
        return nil
    }

    /// `SETTEE_TLS_PORT` serves HTTPS on that port, as before the table: it implies `[ssl] enable`.
    @Test func theTLSPortVariableTurnsHTTPSOn() throws {
        let config = try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: ["SETTEE_TLS_PORT": "7443"])
        #expect(config.tls.enabled && config.tls.port == 7443)
        #expect(config.overrides == [ConfigSetting(section: "ssl", key: "port", value: "7443"),
                                     ConfigSetting(section: "ssl", key: "enable", value: "true")])
    }

    /// Rows read from `NodeConfiguration.configSettings` by the server at start, rather than
    /// by a loader or an effect; and `[httpd]`, CouchDB's old listener section, known (so a
    /// CouchDB local.ini loads without a warning) and refused live, but not served.
    static let readByTheServerAtStart: Set<String> = [
        "[settee] javascript_threads", "[settee] javascript_queue", "[httpd] bind_address", "[httpd] port",
    ]

    /// Live rows are exactly the rows the server applies (an effect), so a key `_config` may
    /// change at once is never one nothing applies; every other row is read at start by one
    /// loader; and the executable loads only rows of the table.
    @Test func liveRowsHaveAnEffectAndLoadersNameRows() {
        for row in ConfigKeys.all {
            let name = "[\(row.section)] \(row.key)"
            #expect((row.timing == .live) == (row.effect != nil), "\(name)")
            let loaded = SetteeConfiguration.loaders[row.section]?[row.key] != nil
            #expect(row.timing == .live || loaded != Self.readByTheServerAtStart.contains(name), "\(name): read by nothing")
        }
        for (section, loaders) in SetteeConfiguration.loaders {
            for key in loaders.keys {
                #expect(ConfigKeys.entry(section, key).map { $0.timing != .live || $0.key == "max_document_size"
                    || $0.section == "log" } == true, "[\(section)] \(key): a loader for a row the table lacks or applies live")
            }
        }
    }
}
