import Logging
import Synchronization

/// A refusal at a security boundary (401, 403, a `next` that leaves the server), logged
/// as a warning at most once a minute per client address: an operator sees that someone
/// probes, and a client that repeats the request (or tries every refusal it can) cannot
/// flood the log.
/// Only the rule, the client address, the path and CouchDB's reason are written, never
/// credentials, cookies or document bodies.
final class SecurityRefusalLog: Sendable {
    /// Seconds between two lines for one client.
    static let interval = 60
    /// When the table holds this many keys, entries older than `interval` are dropped.
    private static let pruneAt = 10_000

    /// Client address → when its last line was written (seconds since the epoch).
    private let lastLogged = Mutex<[String: Int]>([:])

    /// The line's first word(s) and level: refusals are warnings, a database admin's
    /// failing JavaScript (`JavaScriptService.failureLog`) errors.
    private let verb: String
    private let level: Logger.Level

    init(verb: String = "refused", level: Logger.Level = .warning) {
        self.verb = verb
        self.level = level
    }

    /// How many clients the table remembers (for tests).
    var rememberedClients: Int { lastLogged.withLock { $0.count } }

    /// Logs the refusal (`kind`: CouchDB's error word, or what was refused) unless one of
    /// this client's was logged less than `interval` seconds ago. Returns whether it logged.
    @discardableResult
    func note(_ kind: String, client: String, path: Substring, reason: String, logger: Logger,
              now: Int = Authenticator.now()) -> Bool {
        // A client is its address, whatever port it comes from (as the lockout counts clients).
        let address = LoginLockout.address(client)
        let isDue = lastLogged.withLock { table in
            if let last = table[address], now - last < Self.interval { return false }
            if table.count >= Self.pruneAt { table = table.filter { now - $0.value < Self.interval } }
            table[address] = now
            return true
        }
        if isDue {
            logger.log(level: level, "\(verb) \(kind) from \(address) for \(path): \(reason) (logged once a minute per client)")
        }
        return isDue
    }
}
