internal import SetteeViews

/// One setting Settee knows, declared once: where it lives, what its value must be, what it
/// is when unset (CouchDB 3.4.3's default.ini, or Settee's where it differs), whether a
/// `_config` write takes effect at once or at the next start, the `SETTEE_*` variable that
/// may set it, and how the running server applies it.
public struct ConfigKey: Sendable {
    public enum Timing: Sendable {
        /// A `_config` write takes effect at once (the entry's `effect`).
        case live
        /// A `_config` write is kept and shown, and read at the next start.
        case atStart
        /// Refused by `_config` (403): listeners, the data directory, identity.
        case startOnly
    }
    /// What a value must be, when `value` is not that (nil: fine).
    public typealias Check = @Sendable (_ value: String) -> String?
    /// Makes a checked value take effect in the running server; nil when the key is unset
    /// and the table gives no default. Run for the file's and the environment's values when
    /// the server starts and for every `_config` change after.
    typealias Effect = @Sendable (_ effects: ConfigEffects, _ value: String?) -> Void

    public let section: String
    public let key: String
    public let timing: Timing
    /// The value when unset, as text (nil: none, or computed at start).
    public let defaultValue: String?
    /// The environment variable that sets it over the ini file (`SETTEE_PORT`...).
    public let environment: String?
    /// Settings a value from `environment` brings with it (`SETTEE_TLS_PORT` turns HTTPS on).
    public let environmentImplies: [ConfigSetting]
    let check: Check?
    let effect: Effect?

    init(_ section: String, _ key: String, _ timing: Timing, default defaultValue: String? = nil,
         env environment: String? = nil, implies environmentImplies: [ConfigSetting] = [],
         check: Check? = nil, effect: Effect? = nil) {
        (self.section, self.key, self.timing, self.defaultValue) = (section, key, timing, defaultValue)
        (self.environment, self.environmentImplies, self.check, self.effect) = (environment, environmentImplies, check, effect)
    }
}

/// THE table of settings: the ini loader (`SetteeConfiguration`), the environment and
/// `/_node/_local/_config` (its validation and which keys it may change live) all read it.
public enum ConfigKeys {
    public static let all: [ConfigKey] = listeners + couchdb + auth + http + settee

    /// The entry of `[section] key`, if Settee knows it.
    public static func entry(_ section: String, _ key: String) -> ConfigKey? { index[section]?[key] }

    /// Every key by section (the ini loader's list of what it reads).
    public static let known: [String: Set<String>] = all.reduce(into: [:]) { $0[$1.section, default: []].insert($1.key) }

    /// What `value` of `[section] key` must be, when it is not that; nil when fine or unchecked.
    public static func expectation(section: String, key: String, value: String) -> String? {
        entry(section, key)?.check?(value)
    }

    /// Whether a `_config` write of `[section] key` waits for the next start: a start-only key,
    /// or any key of a section read only at start (`startOnlySections`).
    public static func isStartOnly(section: String, key: String) -> Bool {
        startOnlySections.contains(section) || entry(section, key)?.timing == .startOnly
    }

    /// Sections read once, when Settee starts, whatever the key (TLS, discovery, Settee's own, metrics).
    public static let startOnlySections: Set<String> = ["ssl", "discovery", "settee", "prometheus"]

    /// The settings `environment` gives through the table's variables (empty values are
    /// unset), each with the variable it came from, in the table's order.
    public static func settings(fromEnvironment environment: [String: String]) -> [(ConfigSetting, origin: String)] {
        all.flatMap { entry -> [(ConfigSetting, origin: String)] in
            guard let name = entry.environment, let value = environment[name], !value.isEmpty else { return [] }
            let setting = ConfigSetting(section: entry.section, key: entry.key, value: value)
            return [(setting, name)] + entry.environmentImplies.map { ($0, name) }
        }
    }

    private static let index: [String: [String: ConfigKey]] =
        all.reduce(into: [:]) { $0[$1.section, default: [:]][$1.key] = $1 }

    // MARK: Checks, as CouchDB's config:get_* read values

    static let positive: ConfigKey.Check = { Int($0).map { $0 > 0 } == true ? nil : "a positive integer" }
    static let boolean: ConfigKey.Check = { ["true", "false"].contains($0.lowercased()) ? nil : "true or false" }
    static func atLeastZero(_ what: String) -> ConfigKey.Check { { Int($0).map { $0 >= 0 } == true ? nil : what } }

    /// CouchDB's level names (`couch_log_util:level_to_atom`), and swift-log's `trace`;
    /// the executable maps them.
    static let logLevels: Set<String> = ["trace", "debug", "info", "notice", "warning", "warn", "error", "err", "critical", "crit",
                                          "alert", "emergency", "none"]
}
