import SetteeJSON
import SetteeStore
import Synchronization

/// The users of the authentication database (`_users`) as credentials: each `org.couchdb.user:NAME` document's
/// password hash (in the `[admins]` form `PasswordHash` reads) and roles, cached
/// until `_users` changes, so a request's credential check reads no document.
final class UserDirectory: Sendable {
    struct Credentials: Sendable, Equatable {
        /// `-pbkdf2:PRF-KEY,SALT,ITERATIONS`, `-pbkdf2-…` (SHA-1) or `-hashed-SHA,SALT`.
        let hash: String
        let roles: [String]
        /// A `settee pair` user's limits; nil for everyone else.
        var pairing: PairingGrant? = nil
    }

    let directory: DatabaseDirectory
    /// Which database the users are read from (`[chttpd_auth] authentication_db`).
    let authentication: AuthenticationDatabase
    /// The database and its sequence the entries were read at, and what was read (nil: no such user).
    private let cache = Mutex<(database: ObjectIdentifier?, sequence: Int64, entries: [String: Credentials?])>(
        (nil, -1, [:]))

    init(directory: DatabaseDirectory, authentication: AuthenticationDatabase = AuthenticationDatabase()) {
        self.directory = directory
        self.authentication = authentication
    }

    /// What is cached for `name`, if `_users` is open and has not changed since. Never opens
    /// `_users` (not yet open, it answers nil and `credentials` opens it off the caller's
    /// thread): a document GET is authenticated on the event loop's thread.
    func cached(_ name: String) -> Credentials? {
        guard let database = directory.openedDatabase(named: authentication.name) else { return nil }
        let key = (ObjectIdentifier(database), database.changesNotifier.sequence)
        return cache.withLock { ($0.database, $0.sequence) == key ? $0.entries[name] ?? nil : nil }
    }

    /// The credentials of `name`, read from the authentication database when the cache cannot answer.
    func credentials(_ name: String) async -> Credentials? {
        guard let database = try? await directory.open(authentication.name) else { return nil }
        let key = (ObjectIdentifier(database), database.changesNotifier.sequence)
        if let hit = cache.withLock({ ($0.database, $0.sequence) == key ? $0.entries[name] : nil }) { return hit }
        let found = (try? await database.winner(id: "org.couchdb.user:" + name)).flatMap(Self.credentials)
        cache.withLock { state in
            if (state.database, state.sequence) != key || state.entries.count > 10_000 { state = (key.0, key.1, [:]) }
            state.entries[name] = found
        }
        return found
    }

    /// A user document's hash and roles; nil for a deleted or unusable one.
    static func credentials(_ revision: StoredRevision) -> Credentials? {
        guard !revision.isDeleted, let body = revision.body, let doc = (try? JSONReader.parse(body))?.objectValue,
              doc["type"]?.stringValue == "user" else { return nil }
        let roles = doc["roles"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let pairing = PairingGrant(doc[PairingGrant.member])
        let salt = doc["salt"]?.stringValue ?? ""
        switch doc["password_scheme"]?.stringValue ?? "simple" {
        case "pbkdf2":
            guard let key = doc["derived_key"]?.stringValue, let iterations = doc["iterations"]?.intValue else { return nil }
            // No `pbkdf2_prf`: a document from CouchDB ≤ 3.3, PBKDF2-HMAC-SHA1.
            let scheme = doc["pbkdf2_prf"]?.stringValue.map { "-pbkdf2:\($0)-" } ?? "-pbkdf2-"
            return Credentials(hash: "\(scheme)\(key),\(salt),\(iterations)", roles: roles, pairing: pairing)
        case "simple":
            guard let sha = doc["password_sha"]?.stringValue else { return nil }
            return Credentials(hash: "-hashed-\(sha),\(salt)", roles: roles, pairing: pairing)
        default: return nil
        }
    }
}
