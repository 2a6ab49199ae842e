import Crypto
import Synchronization

/// Remembers credentials that verified, so a client sending the same
/// `Authorization` on every request pays PBKDF2 (tens of thousands of rounds)
/// once, not per request, as CouchDB's auth cache does.
///
/// Two kinds of entry, both keyed by a SHA-256 (no password is kept):
/// - a whole `Authorization` header → the name it proved and the stored hash it
///   was checked against, so a repeated header skips even the base64 decoding
///   (that parsing was 5 % of a `GET` document's CPU time);
/// - name, password and stored hash, for logins that are not a header (`_session`).
/// A changed stored hash misses both. The sets are bounded and cleared when full.
final class CredentialCache: Sendable {
    private struct Proven: Sendable {
        let name: String
        let hash: String
    }

    private let headers = Mutex<[Key: Proven]>([:])
    private let verified = Mutex<Set<Key>>([])
    /// Checks under way, by credential: the same one asked again meanwhile waits for it.
    private let checking = SingleFlight<Key, Bool>()
    private let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// The name a previously verified `Authorization` header proved, if its
    /// stored hash (from `storedHash`) is still the one it was checked against.
    func name(forAuthorization header: String, storedHash: (String) -> String?) -> String? {
        let key = Self.digest(header)
        guard let proven = headers.withLock({ $0[key] }), storedHash(proven.name) == proven.hash else { return nil }
        return proven.name
    }

    /// Records that `header` proved `name` against `hash`.
    func remember(authorization header: String, name: String, hash: String) {
        let key = Self.digest(header)
        headers.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = Proven(name: name, hash: hash)
        }
    }

    /// Whether `password` matches `hash`, from the cache or by `PasswordHash.verify` on
    /// `hashing`'s threads (never the cooperative pool: PBKDF2 takes a core for long).
    /// Checks of one credential that arrive together share one PBKDF2: a server that has just
    /// started in a room of 20 is asked by its 19 peers at once, and each check used to queue
    /// a PBKDF2 of its own on one thread (19 × 60 ms of a quiet core, past the peers' 2.5 s
    /// probe on a loaded one, and past `PasswordHashing`'s queue limit: 503s).
    /// - Throws: 503 when too many checks are waiting (`PasswordHashing`).
    func verify(name: String, password: String, against hash: String, on hashing: PasswordHashing) async throws -> Bool {
        let key = Self.digest("\(name)\u{0}\(password)\u{0}\(hash)")
        if verified.withLock({ $0.contains(key) }) { return true }
        return try await checking.run(key) {
            guard try await hashing.verify(password: password, against: hash) else { return false }
            self.verified.withLock { set in
                if set.count >= self.capacity { set.removeAll() }
                set.insert(key)
            }
            return true
        }
    }

    /// A SHA-256 as four words: a key that costs no allocation.
    private struct Key: Hashable, Sendable {
        let w0, w1, w2, w3: UInt64
    }

    /// The SHA-256 of `text`'s UTF-8, hashed in place (a header is checked on every request).
    private static func digest(_ text: String) -> Key {
        var text = text
        let digest = text.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return digest.withUnsafeBytes { raw in
            Key(w0: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                w1: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                w2: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                w3: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }
}
