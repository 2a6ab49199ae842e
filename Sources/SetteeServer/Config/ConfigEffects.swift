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

    /// Makes a validated `value` (nil: deleted) take effect, by the key's row of the one
    /// table (`ConfigKeys`): a deleted key goes back to the row's default (CouchDB's), as
    /// CouchDB's code defaults do. `[admins]`, whose keys are names, is the one section
    /// applied here. A key with no effect is kept and shown, as CouchDB keeps any setting,
    /// and read at the next start.
    func apply(section: String, key: String, value given: String?) {
        if section == "admins" { return live.admins.set(key, hash: given) }
        guard let entry = ConfigKeys.entry(section, key) else { return }
        entry.effect?(self, given ?? entry.defaultValue)
    }

    func updateCORS(_ change: (inout CORSPolicy) -> Void) {
        var policy = live.cors.value
        change(&policy)
        live.cors.set(policy)
    }
}
