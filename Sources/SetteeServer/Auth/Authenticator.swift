import Foundation
import SetteeHTTP

/// Finds out who sent a request: an `AuthSession` cookie or HTTP Basic, checked
/// against `[admins]` (the security work adds `_users` to the same lookup).
/// Wrong Basic credentials are a 401 even where anyone may read, as in CouchDB;
/// an expired or foreign cookie just leaves the request anonymous.
struct Authenticator: Sendable {
    /// name → CouchDB password hash.
    let admins: [String: String]
    let sessions: CookieSession
    let cache = CredentialCache()

    func user(for request: HTTPRequest) throws -> UserContext {
        if let authorization = request.headers["Authorization"] {
            if let name = cache.name(forAuthorization: authorization, storedHash: { admins[$0] }) {
                return UserContext(name: name, roles: ["_admin"])
            }
            if let (name, password) = Self.basicCredentials(authorization) {
                let user = try authenticate(name: name, password: password)
                if let hash = admins[name] { cache.remember(authorization: authorization, name: name, hash: hash) }
                return user
            }
        }
        if let cookie = Self.cookie(named: "AuthSession", in: request.headers), !cookie.isEmpty,
           let name = sessions.verify(cookie, now: Self.now(), passwordHash: { admins[$0] }) {
            return UserContext(name: name, roles: ["_admin"])
        }
        return .anonymous
    }

    /// - Throws: 401 `unauthorized` "Name or password is incorrect."
    func authenticate(name: String, password: String) throws -> UserContext {
        guard let hash = admins[name], cache.verify(name: name, password: password, against: hash) else {
            throw CouchError.unauthorized("Name or password is incorrect.")
        }
        return UserContext(name: name, roles: ["_admin"])
    }

    static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// RFC 7617: `Basic base64(name:password)`; nil for other schemes.
    static func basicCredentials(_ header: String) -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// A cookie's value from the `Cookie` header(s) (RFC 6265 §5.4).
    static func cookie(named name: String, in headers: HTTPHeaders) -> String? {
        for header in headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}
