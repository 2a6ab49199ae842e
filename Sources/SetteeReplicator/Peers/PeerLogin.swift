internal import FoundationEssentials
internal import Synchronization

/// How a remote peer is authenticated, as CouchDB's replicator does it
/// (`couch_replicator_auth_session`): `POST /_session` with the URL's credentials
/// first, then the `AuthSession` cookie on every request — one password check per
/// session instead of one per request. A peer without `_session` gets Basic; a
/// 401 on the cookie logs in again once.
final class PeerLogin: Sendable {
    /// `loggingIn`: the one login in progress, which every request that needs it awaits
    /// (one 401 with many requests in flight must not become many logins).
    private enum Mode { case unknown, loggingIn(Task<Credential, Never>), known(Credential) }
    private enum Credential { case cookie(String), basic }
    private let mode = Mutex(Mode.unknown)
    let endpoint: RemoteEndpoint

    init(endpoint: RemoteEndpoint) { self.endpoint = endpoint }

    /// The credential header for the next request (nil without credentials).
    func header(_ session: CurlSession) async -> (String, String)? {
        guard let credentials = endpoint.credentials else { return nil }
        let current = mode.withLock { mode in
            if case .unknown = mode {
                mode = .loggingIn(Task { await Self.logIn(session, endpoint, credentials) })
            }
            return mode
        }
        let credential: Credential
        switch current {
        case .known(let known): credential = known
        case .unknown: credential = .basic  // not reached: a login was started above
        case .loggingIn(let login):
            credential = await login.value
            mode.withLock { mode in
                if case .loggingIn(let pending) = mode, pending == login { mode = .known(credential) }
            }
        }
        switch credential {
        case .cookie(let cookie): return ("Cookie", cookie)
        case .basic: return endpoint.basicAuthorization
        }
    }

    /// `POST /_session`: the cookie mode, or Basic when the peer gives no cookie.
    private static func logIn(_ session: CurlSession, _ endpoint: RemoteEndpoint,
                              _ credentials: (user: String, password: String)) async -> Credential {
        let body = "name=\(form(credentials.user))&password=\(form(credentials.password))"
        let login = RemoteRequest(method: "POST", url: endpoint.root + "/_session",
                                  headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                            ("Accept", "application/json")], body: Array(body.utf8))
        if let answer = try? await session.send(login), answer.status == 200, let cookie = authSession(answer) {
            return .cookie(cookie)
        }
        return .basic
    }

    /// Takes a refreshed cookie from any answer; after a 401 on the cookie, forgets
    /// it. - Returns: whether the request should be sent again (once).
    func observe(_ response: RemoteResponse, sentCookie: Bool) -> Bool {
        if let cookie = Self.authSession(response) {
            mode.withLock { mode in
                if case .loggingIn = mode { return }  // the login under way sets the cookie
                mode = .known(.cookie(cookie))
            }
        }
        guard response.status == 401, sentCookie else { return false }
        mode.withLock { mode in
            // Requests in flight with the old cookie all come back 401: one login for them all.
            if case .known(.cookie) = mode { mode = .unknown }
        }
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
