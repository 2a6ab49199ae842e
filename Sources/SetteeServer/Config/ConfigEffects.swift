internal import SetteeReplicator
internal import SetteeViews
/// What a `/_node/_local/_config` change does to the running server: which sections
/// and keys may be written at all, what a value must look like, and the settings
/// applied at once — as CouchDB applies them — rather than at the next start.
struct ConfigEffects: Sendable {
    let live: LiveSettings
    let lockout: LoginLockout
    let sessions: CookieSession
    /// Sets the process's log level (the executable owns logging); false for a name it does not know.
    let setLogLevel: @Sendable (String) -> Bool
    let passwordIterations: Int
    /// The node's limits for design document functions (`JavaScriptService`).
    let javaScriptLimits: JavaScriptLimitsSetting

    /// CouchDB's `couch_util:check_config_blacklist`.
    static let blacklistedSections: Set<String> = [
        "daemons", "external", "httpd_design_handlers", "httpd_db_handlers", "httpd_global_handlers",
        "native_query_servers", "os_daemons", "query_servers", "feature_flags",
    ]

    static func checkWritable(section: String, key: String) throws {
        if blacklistedSections.contains(section) {
            throw CouchError(403, "forbidden", "Config section blacklisted for modification over HTTP API.")
        }
        // Settings Settee reads once, when it starts (`ConfigKeys`): listeners, the data
        // directory, identity and TLS cannot change under running connections.
        if ConfigKeys.isStartOnly(section: section, key: key) {
            throw CouchError(403, "forbidden",
                             "[\(section)] \(key) is read when Settee starts: change it in the ini file and restart.")
        }
    }

    /// The value as it is kept: trimmed, as CouchDB does, and an admin's password hashed.
    func stored(section: String, key: String, value: String) throws -> String {
        let trimmed = value.trimmingBlanks()
        guard section == "admins" else { return trimmed }
        guard !trimmed.isEmpty else { throw CouchError.badRequest("An admin's password cannot be empty.") }
        return PasswordHash.isHashed(trimmed) ? trimmed : PasswordHash.hash(password: trimmed, iterations: passwordIterations)
    }

    /// - Throws: 400 `bad_request` naming what the setting takes.
    func validate(section: String, key: String, value: String) throws {
        if let expected = Self.expectation(section: section, key: key, value: value) {
            throw CouchError.badRequest("[\(section)] \(key) must be \(expected), not \"\(value)\".")
        }
    }

    /// What a setting must be, when `value` is not that; nil when it is fine (or the key
    /// is unknown). The one rule for the config API and the ini (`ConfigKeys`).
    static func expectation(section: String, key: String, value: String) -> String? {
        ConfigKeys.expectation(section: section, key: key, value: value)
    }

    static func boolean(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// Makes a validated `value` (nil: deleted) take effect. A deleted key goes back to its
    /// default in the one table (`ConfigKeys`, CouchDB's), as CouchDB's code defaults do;
    /// the fallbacks below serve keys the table gives none (lists, computed limits).
    func apply(section: String, key: String, value given: String?) {
        let value = given ?? ConfigKeys.entry(section, key)?.defaultValue
        switch (section, key) {
        case ("admins", let name):
            live.admins.set(name, hash: value)
        case ("couchdb", "max_document_size"):
            live.maxDocumentSize.set(value.flatMap { Int($0) } ?? 8_000_000)
        // Design document functions' limits: CouchDB's query server timeout (ms) and its
        // JavaScript engine's memory limit, read by each call as it starts (this node's only).
        case ("couchdb", "os_process_timeout"):
            javaScriptLimits.value.time = value.flatMap(Double.init).map { $0 / 1000 } ?? JavaScriptLimits().time
        case ("quickjs", "memory_limit_bytes"):
            javaScriptLimits.value.memoryBytes = value.flatMap { Int($0) } ?? JavaScriptLimits().memoryBytes
        case ("query_server_config", "reduce_limit"):
            javaScriptLimits.value.reduceLimit = value.flatMap { JavaScriptLimits.ReduceLimit(rawValue: $0.lowercased()) } ?? .on
        case ("uuids", "algorithm"):
            live.uuids.configure(algorithm: value.flatMap(UUIDGenerator.Algorithm.init(rawValue:)) ?? .sequential)
        case ("uuids", "utc_id_suffix"):
            live.uuids.configure(utcIDSuffix: value ?? "")
        case ("uuids", "max_count"):
            live.uuidsMaxCount.set(value.flatMap { Int($0) } ?? 1000)
        case ("chttpd", "decode_plus_to_space"):
            live.decodePlusToSpace.set(value.flatMap(Self.boolean) ?? true)
        case ("chttpd", "x_forwarded_host"):
            live.forwardedHostHeader.set(value.flatMap { $0.isEmpty ? nil : $0 } ?? "X-Forwarded-Host")
        case ("chttpd", "allow_jsonp"):
            live.allowJSONP.set(value.flatMap(Self.boolean) ?? false)
        case ("chttpd", "require_valid_user"):
            live.requireValidUser.set(value.flatMap(Self.boolean) ?? false)
        case ("chttpd", "require_valid_user_except_for_up"):
            live.requireValidUserExceptForUp.set(value.flatMap(Self.boolean) ?? false)
        case ("chttpd_auth", "authentication_db"), ("couch_httpd_auth", "authentication_db"):
            live.authentication.set(value.flatMap { $0.isEmpty ? nil : $0 })
        case ("chttpd_auth", "password_regexp"), ("couch_httpd_auth", "password_regexp"):
            live.authentication.passwordRequirements.set(value)
        case ("chttpd_auth", "timeout"), ("couch_httpd_auth", "timeout"):
            sessions.timeoutSetting.set(value.flatMap { Int($0) } ?? 600)
        case ("chttpd_auth", "allow_persistent_cookies"):
            sessions.persistentSetting.set(value.flatMap(Self.boolean) ?? true)
        case ("chttpd_auth_lockout", "mode"):
            lockout.update(mode: value.flatMap(LoginLockout.Mode.init(rawValue:)) ?? .enforce)
        case ("chttpd_auth_lockout", "threshold"):
            lockout.update(threshold: value.flatMap { Int($0) } ?? LoginLockoutConfiguration().threshold)
        case ("chttpd_auth_lockout", "max_lifetime"):
            lockout.update(lifetime: .milliseconds(value.flatMap { Int($0) } ?? LoginLockoutConfiguration().maxLifetime))
        case ("log", "level"):
            _ = setLogLevel(value ?? "info")
        case ("chttpd", "enable_cors"):
            updateCORS { $0.enabled = value.flatMap(Self.boolean) ?? false }
        case ("cors", "origins"):
            updateCORS { $0.origins = value.map(CORSPolicy.list) ?? [] }
        case ("cors", "credentials"):
            updateCORS { $0.credentials = value.flatMap(Self.boolean) ?? false }
        case ("cors", "methods"):
            updateCORS { $0.methods = value.map(CORSPolicy.list) ?? CORSPolicy.supportedMethods }
        case ("cors", "headers"):
            updateCORS { $0.headers = value.map { CORSPolicy.list($0).map { $0.lowercased() } } ?? CORSPolicy.supportedHeaders }
        case ("cors", "exposed_headers"):
            updateCORS { $0.exposedHeaders = value.map { CORSPolicy.list($0).map { $0.lowercased() } } ?? CORSPolicy.couchHeaders }
        case ("cors", "max_age"):
            updateCORS { $0.maxAge = value ?? "600" }
        default:
            break  // kept and shown, as CouchDB keeps any setting; read at the next start
        }
    }

    private func updateCORS(_ change: (inout CORSPolicy) -> Void) {
        var policy = live.cors.value
        change(&policy)
        live.cors.set(policy)
    }
}
