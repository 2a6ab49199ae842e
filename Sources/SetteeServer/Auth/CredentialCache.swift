import Crypto
import Synchronization

/// Remembers Basic credentials that verified, so a client sending the same
/// `Authorization` on every request pays PBKDF2 (tens of thousands of rounds)
/// once, not per request, as CouchDB's auth cache does. Entries are keyed by
/// a SHA-256 of name, password and the stored hash (no password is kept, and a
/// changed hash misses the cache); the set is bounded and simply cleared when full.
final class CredentialCache: Sendable {
    private let verified = Mutex<Set<[UInt8]>>([])
    private let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// Whether `password` matches `hash`, from the cache or by `PasswordHash.verify`.
    func verify(name: String, password: String, against hash: String) -> Bool {
        let key = Array(SHA256.hash(data: Array("\(name)\u{0}\(password)\u{0}\(hash)".utf8)))
        if verified.withLock({ $0.contains(key) }) { return true }
        guard PasswordHash.verify(password: password, against: hash) else { return false }
        verified.withLock { set in
            if set.count >= capacity { set.removeAll() }
            set.insert(key)
        }
        return true
    }
}
