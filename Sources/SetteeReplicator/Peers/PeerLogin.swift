internal import FoundationEssentials
internal import Synchronization

/// How a remote peer is authenticated, as CouchDB's replicator does it
/// (`couch_replicator_auth_session`): `POST /_session` with the URL's credentials
/// first, then the `AuthSession` cookie on every request — one password check per
/// session instead of one per request. A peer without `_session` gets Basic; a
/// 401 on the cookie logs in again once.
final class PeerLogin: Sendable {
    private enum Mode { case unknown, cookie(String), basic }
    private let mode = Mutex(Mode.unknown)
    let endpoint: RemoteEndpoint

    init(endpoint: RemoteEndpoint) { self.endpoint = endpoint }

    /// The credential header for the next request (nil without credentials).
    func header(_ session: CurlSession) async -> (String, String)? {
        guard let credentials = endpoint.credentials else { return nil }
        switch mode.withLock({ $0 }) {
        case .cookie(let cookie): return ("Cookie", cookie)
        case .basic: return endpoint.basicAuthorization
        case .unknown:
            let body = "name=\(Self.form(credentials.user))&password=\(Self.form(credentials.password))"
            let login = RemoteRequest(method: "POST", url: endpoint.root + "/_session",
                                      headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                ("Accept", "application/json")], body: Array(body.utf8))
            let answer = try? await session.send(login)
            if let answer, answer.status == 200, let cookie = Self.authSession(answer) {
                mode.withLock { $0 = .cookie(cookie) }
                return ("Cookie", cookie)
            }
            mode.withLock { $0 = .basic }
            return endpoint.basicAuthorization
        }
    }

    /// Takes a refreshed cookie from any answer; after a 401 on the cookie, forgets
    /// it. - Returns: whether the request should be sent again (once).
    func observe(_ response: RemoteResponse, sentCookie: Bool) -> Bool {
        if let cookie = Self.authSession(response) { mode.withLock { $0 = .cookie(cookie) } }
        guard response.status == 401, sentCookie else { return false }
        mode.withLock { $0 = .unknown }
        return true
    }

    /// `AuthSession=…` from a `Set-Cookie` header.
    static func authSession(_ response: RemoteResponse) -> String? {
        for (name, value) in response.headers where name == "set-cookie" && value.hasPrefix("AuthSession=") {
            let pair = String(value.prefix { $0 != ";" })
            return pair == "AuthSession=" ? nil : pair
        }
        return nil
    }

    private static func form(_ text: String) -> String {
        URLText.percentEncoded(text)
    }
}
