import Crypto
import FoundationEssentials
import SetteeHTTP

/// `AuthSession` cookies as CouchDB makes them (`couch_httpd_auth`): the value
/// is base64url of `name:HEXTIME:MAC`, where MAC is an HMAC over `name:HEXTIME`
/// keyed by the server secret plus the user's password hash, so changing a
/// password ends that user's sessions. Clients treat the value as opaque.
struct CookieSession: Sendable {
    let secret: String
    /// `[chttpd_auth] timeout` and `allow_persistent_cookies`, changeable while running.
    let timeoutSetting: LiveValue<Int>
    let persistentSetting: LiveValue<Bool>

    init(secret: String, timeout: Int, persistent: Bool = true) {
        self.secret = secret
        timeoutSetting = LiveValue(timeout)
        persistentSetting = LiveValue(persistent)
    }

    /// Seconds a cookie stays valid.
    var timeout: Int { timeoutSetting.value }
    /// Whether cookies carry Expires and Max-Age.
    var persistent: Bool { persistentSetting.value }

    /// A cookie value for `name`, issued at `now` (seconds since 1970).
    func issue(name: String, passwordHash: String, now: Int) -> String {
        let payload = "\(name):\(String(now, radix: 16, uppercase: true))"
        var bytes = Array(payload.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: mac(payload, passwordHash: passwordHash))
        return Self.base64URL(bytes)
    }

    /// The `Set-Cookie` value for `cookie`: persistent for `timeout` seconds as
    /// CouchDB 3.4 sends it, unless `persistent` is off.
    func header(_ cookie: String, now: Int) -> String {
        // Cookie dates as CouchDB writes them: "Tue, 24-Nov-2026 20:53:48 GMT".
        guard persistent else { return "AuthSession=\(cookie); Version=1; Path=/; HttpOnly" }
        let parts = HTTPDate.format(now + timeout).split(separator: " ")
        let expires = "\(parts[0]) \(parts[1])-\(parts[2])-\(parts[3]) \(parts[4]) \(parts[5])"
        return "AuthSession=\(cookie); Version=1; Expires=\(expires); Max-Age=\(timeout); Path=/; HttpOnly"
    }

    /// Whether a cookie decodes to three `:`-separated parts, as CouchDB splits it before any check.
    func isWellFormed(_ value: String) -> Bool {
        guard let bytes = Self.decodeBase64URL(value), let first = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            return false
        }
        return bytes[(first + 1)...].contains(UInt8(ascii: ":"))
    }

    /// The user name a cookie claims, before any check (to look up whose key verifies it).
    func name(of value: String) -> String? {
        guard let bytes = Self.decodeBase64URL(value), let first = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            return nil
        }
        return String(validating: bytes[..<first], as: UTF8.self)
    }

    /// When a cookie says it was issued (seconds since 1970), before any check.
    func issued(_ value: String) -> Int? {
        guard let bytes = Self.decodeBase64URL(value), let first = bytes.firstIndex(of: UInt8(ascii: ":")),
              let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ":")),
              let text = String(validating: bytes[(first + 1)..<second], as: UTF8.self) else { return nil }
        return Int(text, radix: 16)
    }

    /// The user name of a valid, unexpired cookie; nil otherwise.
    /// - Parameter passwordHash: looks up the current hash of a user name.
    func verify(_ value: String, now: Int, passwordHash: (String) -> String?) -> String? {
        guard let bytes = Self.decodeBase64URL(value) else { return nil }
        // name may not contain ':'; the MAC may contain any byte, so split at the first two colons only.
        guard let first = bytes.firstIndex(of: UInt8(ascii: ":")),
              let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ":")),
              let name = String(validating: bytes[..<first], as: UTF8.self),
              let timeText = String(validating: bytes[(first + 1)..<second], as: UTF8.self),
              let issued = Int(timeText, radix: 16), let hash = passwordHash(name)
        else { return nil }
        guard now - issued < timeout, issued <= now + 60 else { return nil }
        let expected = mac("\(name):\(timeText)", passwordHash: hash)
        let given = Array(bytes[(second + 1)...])
        guard given.count == expected.count else { return nil }
        // Constant-time comparison: no early exit on the first differing byte.
        let difference = zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        return difference == 0 ? name : nil
    }

    private func mac(_ payload: String, passwordHash: String) -> [UInt8] {
        let key = SymmetricKey(data: Array((secret + passwordHash).utf8))
        return Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacing("+", with: "-")
            .replacing("/", with: "_").replacing("=", with: "")
    }

    /// Bytes of base64url text (no padding). Byte by byte, not with `String.replacing`:
    /// every cookie-authenticated request decodes its cookie two or three times, and the
    /// string searches were 8 % of a replication source's CPU (bench/RESULTS.md).
    static func decodeBase64URL(_ text: String) -> [UInt8]? {
        var standard = text.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(standard)).map(Array.init)
    }
}
