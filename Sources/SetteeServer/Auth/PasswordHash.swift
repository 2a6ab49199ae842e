/*
 CouchDB's admin password hashes, as stored in `[admins]` (couch_passwords.erl, 3.x):

   -pbkdf2:sha256-<derived key hex>,<salt>,<iterations>   written by CouchDB 3.4+
   -pbkdf2:<prf>-<derived key hex>,<salt>,<iterations>    prf ∈ sha, sha224, sha256, sha384, sha512
   -pbkdf2-<derived key hex>,<salt>,<iterations>          CouchDB ≤ 3.3: PBKDF2-HMAC-SHA1
   -hashed-<sha1 hex>,<salt>                               legacy "simple": sha1(password ++ salt)

 The salt is CouchDB's `couch_uuids:random()`: 32 hex characters used *as text*, not
 decoded to bytes; the derived key is as long as the PRF's digest. We write the 3.4
 form with 3.4.3's `[chttpd_auth] iterations` default, 600,000 (what its own local.ini
 gets), so an ini moved between Settee and CouchDB keeps working in both directions.
*/
internal import Crypto
internal import _CryptoExtras

/// Hashing and checking admin passwords in CouchDB's `[admins]` format.
///
///     let stored = PasswordHash.hash(password: "s3cret")   // "-pbkdf2:sha256-…,…,600000"
///     PasswordHash.verify(password: "s3cret", against: stored)   // true
public enum PasswordHash {
    /// Iterations used for new hashes: CouchDB 3.4.3's `[chttpd_auth] iterations` default.
    public static let defaultIterations = 600_000

    /// Hashes `password` with PBKDF2-HMAC-SHA256 and a fresh random salt, in
    /// CouchDB 3.4's `-pbkdf2:sha256-KEY,SALT,ITERATIONS` form.
    public static func hash(password: String, iterations: Int = defaultIterations) -> String {
        hash(password: password, salt: randomHex(byteCount: 16), iterations: iterations)
    }

    /// Hashes `password` with `salt` (32 hex characters, used as text, as CouchDB's).
    public static func hash(password: String, salt: String, iterations: Int) -> String {
        let key = derive(password: password, salt: salt, prf: .sha256, iterations: iterations) ?? ""
        return "-pbkdf2:sha256-\(key),\(salt),\(iterations)"
    }

    /// A salt that is the same at every start of one node for one user, and another on
    /// another node (HMAC-SHA256 of the name under the node's cookie secret): for a password
    /// given anew at each start (`SETTEE_ADMIN`). A session cookie is signed with the
    /// user's salt (CouchDB's `couch_httpd_auth`), so a fresh random one made every
    /// restart end every admin's session.
    public static func salt(for name: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(("SETTEE_ADMIN salt:" + name).utf8),
                                                  using: SymmetricKey(data: Array(secret.utf8)))
        return hexString(mac).prefix(32).description
    }

    /// Whether `password` matches `stored`, which may be any form CouchDB 3.x reads
    /// (see the file comment). A value that is not a hash never matches.
    public static func verify(password: String, against stored: String) -> Bool {
        guard let parsed = ParsedHash(stored) else { return false }
        let computed: String?
        switch parsed.scheme {
        case .pbkdf2(let prf, let iterations):
            computed = derive(password: password, salt: parsed.salt, prf: prf, iterations: iterations)
        case .simple:
            computed = hexString(Insecure.SHA1.hash(data: Array((password + parsed.salt).utf8)))
        }
        guard let computed else { return false }
        return constantTimeEquals(computed, parsed.key.lowercased())
    }

    /// Whether `value` is already a hash (so `[admins]` needs no rewriting), by
    /// CouchDB's own test in `get_unhashed_admins/0`: a known scheme prefix.
    public static func isHashed(_ value: String) -> Bool {
        let prefixes = ["-hashed-", "-pbkdf2-", "-pbkdf2:sha-", "-pbkdf2:sha224-",
                        "-pbkdf2:sha256-", "-pbkdf2:sha384-", "-pbkdf2:sha512-"]
        return prefixes.contains { value.hasPrefix($0) }
    }

    // MARK: - Internals

    /// The pseudo-random function of a PBKDF2 hash and its digest length in bytes.
    enum PRF: String {
        case sha = "sha", sha224, sha256, sha384, sha512

        var function: KDF.Insecure.PBKDF2.HashFunction {
            switch self {
            case .sha: .insecureSHA1
            case .sha224: .insecureSHA224
            case .sha256: .sha256
            case .sha384: .sha384
            case .sha512: .sha512
            }
        }

        var digestByteCount: Int {
            switch self {
            case .sha: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }

    /// A stored hash split into its parts.
    struct ParsedHash {
        enum Scheme { case pbkdf2(PRF, iterations: Int), simple }
        var scheme: Scheme
        var key: String
        var salt: String

        init?(_ stored: String) {
            if stored.hasPrefix("-hashed-") {
                let parts = stored.dropFirst("-hashed-".count).split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                (scheme, key, salt) = (.simple, String(parts[0]), String(parts[1]))
                return
            }
            guard stored.hasPrefix("-pbkdf2"), let dash = stored.dropFirst().firstIndex(of: "-") else { return nil }
            // Between "-pbkdf2" and the next "-": empty (legacy SHA-1) or ":<prf>".
            let prfText = stored[stored.index(stored.startIndex, offsetBy: 7)..<dash]
            let prf: PRF? = prfText.isEmpty ? .sha
                : prfText.hasPrefix(":") ? PRF(rawValue: String(prfText.dropFirst())) : nil
            let parts = stored[stored.index(after: dash)...].split(separator: ",", omittingEmptySubsequences: false)
            // CouchDB caps iterations nowhere; we refuse absurd counts so a hostile ini
            // value cannot stall start-up or a login for hours.
            guard let prf, parts.count == 3, let iterations = Int(parts[2]), (1...10_000_000).contains(iterations)
            else { return nil }
            (scheme, key, salt) = (.pbkdf2(prf, iterations: iterations), String(parts[0]), String(parts[1]))
        }
    }

    static func derive(password: String, salt: String, prf: PRF, iterations: Int) -> String? {
        // unsafeUncheckedRounds: older CouchDB iteration counts (10 before 3.x, 50,000
        // later) are below swift-crypto's 210,000 floor, and must be honoured to verify.
        guard let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: Array(salt.utf8), using: prf.function,
            outputByteCount: prf.digestByteCount, unsafeUncheckedRounds: iterations)
        else { return nil }
        return key.withUnsafeBytes { hexString($0) }
    }

    static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hexString((0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Compares without an early exit so timing does not reveal the matching prefix
    /// (CouchDB: `crypto:hash_equals`).
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
