import Synchronization

extension ConfigSetting {
    /// `settings` with each of `overrides` replacing the value of its key (or added), the
    /// last override of a key winning.
    public static func overlaid(_ settings: [ConfigSetting], with overrides: [ConfigSetting]) -> [ConfigSetting] {
        let replaced = Set(overrides.map { "\($0.section)\u{0}\($0.key)" })
        return settings.filter { !replaced.contains("\($0.section)\u{0}\($0.key)") } + overrides
    }
}

/// Where `/_node/_local/_config` writes go: the ini file the server started with.
/// The executable provides it (SetteeConfig); without one, changes last until restart.
public protocol ConfigPersistence: Sendable {
    /// Sets `key` in `section` (nil removes it) and rewrites the file whole, or throws
    /// with the file untouched.
    func save(section: String, key: String, value: String?) throws
    /// The file's settings as they are on disk now.
    func load() throws -> [ConfigSetting]
}

/// One `[section] key = value`.
public struct ConfigSetting: Sendable, Equatable {
    public var section: String
    public var key: String
    public var value: String

    public init(section: String, key: String, value: String) {
        self.section = section
        self.key = key
        self.value = value
    }
}

/// The node's configuration as `/_node/_local/_config` shows and changes it, as
/// CouchDB's `config` application does: what the ini file says, plus what was set
/// over HTTP. A change is checked, written to the file (unless `X-Couch-Persist:
/// false`), then applied to the running server where Settee can (`ConfigEffects`).
final class NodeConfig: Sendable {
    private let values: Mutex<[String: [String: String]]>
    private let persistence: (any ConfigPersistence)?
    /// What `_reload` returns to when there is no file: the settings at start.
    private let initial: [ConfigSetting]
    /// Settings from outside the file (`SETTEE_*`, flags), over the file's after `_reload` too.
    private let overrides: [ConfigSetting]
    let effects: ConfigEffects

    init(settings: [ConfigSetting], overrides: [ConfigSetting] = [], persistence: (any ConfigPersistence)?,
         effects: ConfigEffects) {
        values = Mutex(Self.grouped(settings))
        initial = settings
        self.overrides = overrides
        self.persistence = persistence
        self.effects = effects
    }

    static func grouped(_ settings: [ConfigSetting]) -> [String: [String: String]] {
        var grouped: [String: [String: String]] = [:]
        for setting in settings { grouped[setting.section, default: [:]][setting.key] = setting.value }
        return grouped
    }

    var all: [String: [String: String]] { values.withLock { $0 } }

    func section(_ name: String) -> [String: String] { values.withLock { $0[name] ?? [:] } }

    func value(_ key: String, in section: String) -> String? { values.withLock { $0[section]?[key] } }

    /// The caller has checked `ConfigEffects.checkWritable` (the HTTP API's rule).
    /// - Returns: the value it replaced, or "" (CouchDB's answer).
    /// - Throws: 400 for a value the setting cannot take, or when the file cannot be
    ///   written (nothing changes then).
    func set(_ key: String, in section: String, to raw: String, persist: Bool) throws -> String {
        let value = try effects.stored(section: section, key: key, value: raw)
        try effects.validate(section: section, key: key, value: value)
        if persist, let persistence { try write { try persistence.save(section: section, key: key, value: value) } }
        let old = values.withLock { all -> String? in
            defer { all[section, default: [:]][key] = value }
            return all[section]?[key]
        }
        effects.apply(section: section, key: key, value: value)
        return old ?? ""
    }

    /// - Returns: the value removed. - Throws: 404 `unknown_config_value` when unset.
    func delete(_ key: String, in section: String, persist: Bool) throws -> String {
        guard let old = value(key, in: section) else { throw CouchError(404, "not_found", "unknown_config_value") }
        if persist, let persistence { try write { try persistence.save(section: section, key: key, value: nil) } }
        values.withLock { all in
            all[section]?[key] = nil
            if all[section]?.isEmpty == true { all[section] = nil }
        }
        effects.apply(section: section, key: key, value: nil)
        return old
    }

    /// `POST /_node/_local/_config/_reload`: back to what the file says (values set
    /// with `X-Couch-Persist: false` are dropped), applied again.
    func reload() throws {
        var settings = initial
        if let persistence {
            do { settings = try persistence.load() } catch { throw CouchError(400, "bad_request", "\(error)") }
            // Not in the file, but shown as CouchDB shows its own.
            settings += initial.filter { $0.section == "couchdb" && $0.key == "uuid" }
            settings = ConfigSetting.overlaid(settings, with: overrides)
        }
        let before = values.withLock { all in
            defer { all = Self.grouped(settings) }
            return all
        }
        let after = Self.grouped(settings)
        for (section, keys) in before { for key in keys.keys where after[section]?[key] == nil {
            effects.apply(section: section, key: key, value: nil)
        } }
        for setting in settings { effects.apply(section: setting.section, key: setting.key, value: setting.value) }
    }

    private func write(_ body: () throws -> Void) throws {
        // CouchDB answers a failed `config:set` with 400 and the reason.
        do { try body() } catch { throw CouchError.badRequest("\(error)") }
    }
}
