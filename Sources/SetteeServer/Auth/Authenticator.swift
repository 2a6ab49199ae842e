internal import SetteeReplicator
import FoundationEssentials
import SetteeHTTP

/// Finds out who sent a request: an `AuthSession` cookie or HTTP Basic, checked
/// against `[admins]`, then the users of `_users` (with their roles).
/// Wrong Basic credentials are a 401 even where anyone may read, as in CouchDB;
/// an expired or foreign cookie just leaves the request anonymous.
struct Authenticator: Sendable {
    /// name → CouchDB password hash (`[admins]`, changeable over the config API).
    let admins: AdminTable
    let sessions: CookieSession
    let users: UserDirectory
    let lockout: LoginLockout
    let cache = CredentialCache()
    /// Refusals at security boundaries, logged once a minute per client.
    let refusals = SecurityRefusalLog()
    /// The threads passwords are checked on (PBKDF2), off the cooperative pool.
    let hashing = PasswordHashing()

    /// A stand-in hash for names nobody has, checked like a real one so that a
    /// wrong name costs as long as a wrong password.
    private static let nobody = PasswordHash.hash(password: PasswordHash.randomHex(byteCount: 16))

    func user(for request: HTTPRequest) async throws -> UserContext {
        // couch_httpd_auth:cookie_authentication_handler/1, which runs first: a cookie that does
        // not decode to `name:time:mac` is 400 whatever else the request carries (CouchDB 3.4.3;
        // cookie_auth_test.exs).
        if let cookie = Self.cookie(named: "AuthSession", in: request.headers), !cookie.isEmpty,
           !sessions.isWellFormed(cookie) {
            throw CouchError.badRequest("Malformed AuthSession cookie. Please clear your cookies.")
        }
        if let authorization = request.headers["Authorization"] {
            // Seen before with the same stored hash: no PBKDF2, no document read.
            if let name = cache.name(forAuthorization: authorization, storedHash: { admins.proofKey($0) }) {
                return UserContext(name: name, roles: ["_admin"])
            }
            if let name = cache.name(forAuthorization: authorization, storedHash: { users.cached($0)?.hash }),
               let known = users.cached(name) {
                if let grant = known.pairing {
                    try await users.admitPairing(name: name, grant, from: request.remoteAddress)
                }
                return UserContext(name: name, roles: known.roles, pairing: known.pairing)
            }
            if let (name, password) = try Self.basicCredentials(authorization) {
                let (user, hash) = try await basicUser(name: name, password: password, peer: request.remoteAddress)
                cache.remember(authorization: authorization, name: name, hash: admins.proofKey(name) ?? hash)
                return user
            }
        }
        if let (user, _) = await cookieUser(request) { return user }
        if let name = request.clientCertificateName { return await certificateUser(name) }
        return .anonymous
    }

    /// The user a verified client certificate's common name names (`[ssl] cacert_file`):
    /// an `[admins]` admin or a `_users` user; anyone else stays anonymous. A pairing user
    /// never logs in this way (its limits count passwords).
    private func certificateUser(_ name: String) async -> UserContext {
        if admins.contains(name) { return UserContext(name: name, roles: ["_admin"]) }
        if let known = await users.credentials(name), known.pairing == nil {
            return UserContext(name: name, roles: known.roles)
        }
        return .anonymous
    }

    /// The user an `AuthSession` cookie proves, and the hash that keys it.
    private func cookieUser(_ request: HTTPRequest) async -> (UserContext, String)? {
        guard let cookie = Self.cookie(named: "AuthSession", in: request.headers), !cookie.isEmpty,
              let name = sessions.name(of: cookie) else { return nil }
        if let stored = admins.stored(name), let hash = try? await adminHash(stored),
           sessions.verify(cookie, now: Self.now(), passwordHash: { _ in hash }) != nil {
            return (UserContext(name: name, roles: ["_admin"]), hash)
        }
        if let known = await users.credentials(name),
           sessions.verify(cookie, now: Self.now(), passwordHash: { _ in known.hash }) != nil {
            // A pairing that expired or is used up makes its cookies worthless too.
            if let grant = known.pairing {
                guard (try? await users.admitPairing(name: name, grant, from: request.remoteAddress)) != nil else { return nil }
            }
            return (UserContext(name: name, roles: known.roles, pairing: known.pairing), known.hash)
        }
        return nil
    }

    /// A fresh cookie for a request that came with one more than a tenth of its
    /// lifetime old, as CouchDB refreshes them (`couch_httpd_auth:cookie_auth_header`):
    /// an active session does not expire. Nil when Basic was sent or nothing is due.
    func refreshedCookie(for request: HTTPRequest) async -> String? {
        guard request.headers["Authorization"] == nil,
              let cookie = Self.cookie(named: "AuthSession", in: request.headers),
              let issued = sessions.issued(cookie), Self.now() - issued > sessions.timeout / 10,
              let (user, hash) = await cookieUser(request), let name = user.name else { return nil }
        return sessions.header(sessions.issue(name: name, passwordHash: hash, now: Self.now()), now: Self.now())
    }

    /// The user `name` and `password` prove, and the stored hash they were checked
    /// against (a session cookie is keyed by it, so a new password ends it).
    /// - Throws: 401 `unauthorized` "Name or password is incorrect.", or 403 when
    ///   this user is locked out from `peer` (`LoginLockout`), or 503 when too many
    ///   password checks are waiting (`PasswordHashing`).
    func authenticate(name: String, password: String, peer: String) async throws -> (UserContext, String) {
        if let admin = try givenAdmin(name: name, password: password, peer: peer) {
            return (UserContext(name: name, roles: ["_admin"]), try await admin.hash(on: hashing))
        }
        let user: UserContext, hash: String
        if let stored = admins.stored(name) {
            (user, hash) = (UserContext(name: name, roles: ["_admin"]), try await adminHash(stored))
        } else if let known = await users.credentials(name) {
            (user, hash) = (UserContext(name: name, roles: known.roles, pairing: known.pairing), known.hash)
        } else {
            _ = try await hashing.verify(password: password, against: Self.nobody)
            throw CouchError.unauthorized("Name or password is incorrect.")
        }
        if lockout.isLockedOut(name: name, peer: peer) { throw CouchError(403, "forbidden", LoginLockout.message) }
        guard try await cache.verify(name: name, password: password, against: hash, on: hashing) else {
            lockout.recordFailure(name: name, peer: peer)
            throw CouchError.unauthorized("Name or password is incorrect.")
        }
        if let grant = user.pairing { try await users.admitPairing(name: name, grant, from: peer) }
        return (user, hash)
    }

    /// `authenticate` for a Basic header, whose stored hash is only remembered (`proofKey`):
    /// the `SETTEE_ADMIN` admin's own password is proved against the password given, with
    /// no PBKDF2 (`EnvironmentAdmin`); anything else is checked as `authenticate` checks it.
    /// - Returns: the user, and the hash checked against (empty for the given password).
    private func basicUser(name: String, password: String, peer: String) async throws -> (UserContext, String) {
        if try givenAdmin(name: name, password: password, peer: peer) != nil {
            return (UserContext(name: name, roles: ["_admin"]), "")
        }
        return try await authenticate(name: name, password: password, peer: peer)
    }

    /// The `SETTEE_ADMIN` admin `name`, when `password` is the one it was given (`EnvironmentAdmin`).
    /// - Throws: 403 when it is locked out from `peer` (`LoginLockout`), as any login.
    private func givenAdmin(name: String, password: String, peer: String) throws -> EnvironmentAdmin? {
        guard case .environment(let admin)? = admins.stored(name), admin.isGivenPassword(password) else { return nil }
        if lockout.isLockedOut(name: name, peer: peer) { throw CouchError(403, "forbidden", LoginLockout.message) }
        return admin
    }

    /// An admin's stored hash; a `SETTEE_ADMIN` one's is derived on `hashing`'s threads the first time.
    /// - Throws: 503 when too many password checks are waiting (`PasswordHashing`).
    private func adminHash(_ stored: AdminTable.Stored) async throws -> String {
        switch stored {
        case .hash(let hash): hash
        case .environment(let admin): try await admin.hash(on: hashing)
        }
    }

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// RFC 7617: `Basic base64(name:password)`; nil for other schemes and for a value
    /// without a `:` (CouchDB leaves those anonymous).
    /// - Throws: 400 for a Basic value that is not base64, as CouchDB answers.
    static func basicCredentials(_ header: String) throws -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        guard let data = Data(base64Encoded: String(parts[1]).trimmingBlanks()) else {
            throw CouchError.badRequest("Authorization header has invalid base64 value")
        }
        guard let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// A cookie's value from the `Cookie` header(s) (RFC 6265 §5.4).
    static func cookie(named name: String, in headers: HTTPHeaders) -> String? {
        for header in headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingBlanks() == name {
                    return parts[1].trimmingBlanks()
                }
            }
        }
        return nil
    }
}
