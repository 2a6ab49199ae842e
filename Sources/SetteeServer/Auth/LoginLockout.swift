import FoundationEssentials
import Synchronization

/// CouchDB 3.4's `[chttpd_auth_lockout]`: after `threshold` wrong passwords for one
/// user from one client address, that pair is refused (403) until `lifetime` has
/// passed since its first failure. Other addresses, and other users from the same
/// address, are not affected. A client that already proved the password (a cached
/// `Authorization`) keeps working: the lockout is against guessing.
final class LoginLockout: Sendable {
    enum Mode: String, Sendable { case off, warn, enforce }

    static let message = "Account is temporarily locked due to multiple authentication failures"

    /// `[chttpd_auth_lockout]`, changeable while running.
    private let settings: Mutex<(mode: Mode, threshold: Int, lifetime: Duration)>
    var mode: Mode { settings.withLock { $0.mode } }
    var threshold: Int { settings.withLock { $0.threshold } }
    var lifetime: Duration { settings.withLock { $0.lifetime } }
    let maxEntries: Int
    private let failures = Mutex<[Key: Entry]>([:])

    struct Key: Hashable { let address: String, name: String }
    struct Entry { var count: Int; let first: ContinuousClock.Instant }

    convenience init(_ configuration: LoginLockoutConfiguration) {
        self.init(mode: Mode(rawValue: configuration.mode) ?? .off, threshold: configuration.threshold,
                  lifetime: .milliseconds(configuration.maxLifetime))
    }

    init(mode: Mode = .enforce, threshold: Int = 5, lifetime: Duration = .seconds(300), maxEntries: Int = 10_000) {
        settings = Mutex((mode, threshold, lifetime))
        self.maxEntries = maxEntries
    }

    func update(mode: Mode? = nil, threshold: Int? = nil, lifetime: Duration? = nil) {
        settings.withLock { s in
            if let mode { s.mode = mode }
            if let threshold { s.threshold = threshold }
            if let lifetime { s.lifetime = lifetime }
        }
    }

    /// Whether `name` from `peer` (`ADDR:PORT`) is locked out now.
    func isLockedOut(name: String, peer: String) -> Bool {
        guard mode == .enforce else { return false }
        let key = Key(address: Self.address(peer), name: name)
        let now = ContinuousClock.now
        return failures.withLock { entries in
            guard let entry = entries[key] else { return false }
            if now - entry.first > lifetime {
                entries[key] = nil
                return false
            }
            return entry.count >= threshold
        }
    }

    /// Counts a wrong password for `name` from `peer`.
    func recordFailure(name: String, peer: String) {
        guard mode != .off else { return }
        let key = Key(address: Self.address(peer), name: name)
        let now = ContinuousClock.now
        failures.withLock { entries in
            if entries.count >= maxEntries { entries = entries.filter { now - $0.value.first <= lifetime } }
            if entries.count >= maxEntries { entries.removeAll() }  // still full: start over rather than grow
            if let entry = entries[key], now - entry.first <= lifetime {
                entries[key]?.count = entry.count + 1
            } else {
                entries[key] = Entry(count: 1, first: now)
            }
        }
    }

    /// The address part of `ADDR:PORT` or `[V6]:PORT`.
    static func address(_ peer: String) -> String {
        if peer.hasPrefix("["), let end = peer.firstIndex(of: "]") { return String(peer[peer.index(after: peer.startIndex)..<end]) }
        guard let colon = peer.lastIndex(of: ":"), peer.firstIndex(of: ":") == colon else { return peer }
        return String(peer[..<colon])
    }
}
