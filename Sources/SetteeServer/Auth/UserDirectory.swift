import SetteeJSON
import SetteeStore
import Synchronization

/// The users of `_users` as credentials: each `org.couchdb.user:NAME` document's
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

    static let databaseName = "_users"
    let directory: DatabaseDirectory
    /// The `_users` sequence the entries were read at, and what was read (nil: no such user).
    private let cache = Mutex<(sequence: Int64, entries: [String: Credentials?])>((-1, [:]))

    init(directory: DatabaseDirectory) { self.directory = directory }

    /// What is cached for `name`, if `_users` has not changed since.
    func cached(_ name: String) -> Credentials? {
        guard let database = try? directory.database(named: Self.databaseName) else { return nil }
        let sequence = database.changesNotifier.sequence
        return cache.withLock { $0.sequence == sequence ? $0.entries[name] ?? nil : nil }
    }

    /// The credentials of `name`, read from `_users` when the cache cannot answer.
    func credentials(_ name: String) async -> Credentials? {
        guard let database = try? directory.database(named: Self.databaseName) else { return nil }
        let sequence = database.changesNotifier.sequence
        if let hit = cache.withLock({ $0.sequence == sequence ? $0.entries[name] : nil }) { return hit }
        let found = (try? await database.winner(id: "org.couchdb.user:" + name)).flatMap(Self.credentials)
        cache.withLock { state in
            if state.sequence != sequence || state.entries.count > 10_000 { state = (sequence, [:]) }
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
