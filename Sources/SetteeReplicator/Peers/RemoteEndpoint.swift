internal import FoundationEssentials

/// A database URL taken apart: where to send requests, and the credentials to
/// send with them, which never appear in `displayName` or a log line.
public struct RemoteEndpoint: Sendable {
    /// `scheme://host[:port]` plus any path prefix before the database, no userinfo.
    public let root: String
    /// `root` + `/` + the database's encoded path segment.
    public let database: String
    /// The database's name, decoded.
    public let name: String
    /// Headers every request carries (a `{"url", "headers"}` endpoint's).
    public let headers: [(String, String)]
    /// The URL's userinfo: a session is opened with it, or it goes as Basic.
    public let credentials: (user: String, password: String)?
    /// The one certificate trusted for this peer (`--pin`, `tls_fingerprint`), `AB:CD:…`.
    public let pinnedFingerprint: String?

    /// - Parameter pin: a SHA-256 certificate fingerprint (hex, colons optional) to trust exactly.
    ///   A URL ending in `#fp=HEX` (what `settee pair` prints) carries its own pin; an explicit
    ///   `pin` wins over it.
    /// - Throws: `ReplicationError.invalidEndpoint` for anything but an http(s) URL with a database path,
    ///   `.invalidOption` for a malformed pin.
    public init(url text: String, headers extra: [(String, String)] = [], pin explicitPin: String? = nil) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw ReplicationError.invalidEndpoint(Self.redacted(text))
        }
        let path = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = path.last, let name = URLText.percentDecoded(last) else {
            throw ReplicationError.invalidEndpoint(Self.redacted(text))
        }
        let hostPart = Self.hostPart(host, encoded: components.percentEncodedHost)
        let authority = scheme + "://" + hostPart + (components.port.map { ":\($0)" } ?? "")
        root = authority + path.dropLast().map { "/" + $0 }.joined()
        database = root + "/" + last
        self.name = name
        headers = extra
        if let pin = explicitPin ?? (scheme == "https" ? Self.fragmentPin(components.fragment) : nil) {
            guard let normalized = CertificatePin.normalize(pin) else {
                throw ReplicationError.invalidOption("`tls_fingerprint` must be a SHA-256 fingerprint: 64 hex digits, colons allowed")
            }
            pinnedFingerprint = normalized
        } else {
            pinnedFingerprint = nil
        }
        credentials = components.percentEncodedUser.flatMap(URLText.percentDecoded).map {
            ($0, components.percentEncodedPassword.flatMap(URLText.percentDecoded) ?? "")
        }
    }

    /// The URL's host as it goes back into a URL: an IPv6 literal in brackets with its zone's `%`
    /// encoded as `%25` (RFC 6874: `[fe80::1%25eth0]`, what discovery builds for a link-local
    /// peer); URLComponents' `host` gives the zone decoded, which a URL must not hold.
    static func hostPart(_ host: String, encoded: String?) -> String {
        guard host.contains(":") else { return host }
        if host.hasPrefix("["), let encoded, encoded.hasPrefix("[") { return encoded }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return "[" + bare.replacing("%", with: "%25") + "]"
    }

    /// The pin in a URL's fragment, `fp=HEX` (never sent to the server), if there is one.
    static func fragmentPin(_ fragment: String?) -> String? {
        guard let fragment else { return nil }
        for pair in fragment.split(separator: "&") where pair.lowercased().hasPrefix("fp=") {
            return String(pair.dropFirst(3))
        }
        return nil
    }

    /// `Authorization: Basic …` for the URL's credentials, if it has any.
    public var basicAuthorization: (String, String)? {
        credentials.map { ("Authorization", "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString()) }
    }

    /// The URL without its credentials: what logs and task lists show.
    public var displayName: String { database }

    /// `text` with any userinfo cut out, for an error message.
    static func redacted(_ text: String) -> String {
        guard let at = text.firstIndex(of: "@"), let scheme = text.firstRange(of: "://"), scheme.upperBound < at else {
            return text
        }
        return String(text[..<scheme.upperBound]) + "…" + String(text[at...])
    }

    /// A document id in a URL: encoded, but the `_design/` or `_local/` prefix's slash
    /// kept literal (proxies refuse `%2F`; CouchDB reads both).
    static func documentPath(_ id: String) -> String {
        for prefix in ["_design/", "_local/"] where id.hasPrefix(prefix) {
            return prefix + encode(String(id.dropFirst(prefix.count)))
        }
        return encode(id)
    }

    /// An attachment name in a URL: each `/`-separated piece encoded (names may hold `/`).
    static func attachmentPath(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    /// A path segment, percent-encoded as CouchDB ids travel: everything but unreserved bytes.
    static func encode(_ segment: String) -> String {
        URLText.percentEncoded(segment)
    }
}
