import Foundation
import SetteeHTTP

/// Finds out who sent a request: HTTP Basic against `[admins]` for now
/// (cookie sessions and `_users` add to this, they do not replace it).
/// Wrong credentials are a 401 even on endpoints anyone may use, as in CouchDB.
struct Authenticator: Sendable {
    /// name → CouchDB password hash.
    let admins: [String: String]

    func user(for request: HTTPRequest) throws -> UserContext {
        guard let authorization = request.headers["Authorization"] else { return .anonymous }
        guard let (name, password) = Self.basicCredentials(authorization) else { return .anonymous }
        guard let hash = admins[name], PasswordHash.verify(password: password, against: hash) else {
            throw CouchError.unauthorized("Name or password is incorrect.")
        }
        return UserContext(name: name, roles: ["_admin"])
    }

    /// RFC 7617: `Basic base64(name:password)`; nil for other schemes.
    static func basicCredentials(_ header: String) -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
