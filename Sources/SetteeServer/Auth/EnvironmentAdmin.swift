internal import Crypto
import Synchronization

/*
 The admin `SETTEE_ADMIN` names. Its password is given anew at every start, in plain text,
 in the process's environment; its CouchDB hash (PBKDF2-HMAC-SHA256, 600,000 rounds, the
 salt derived from the cookie secret: `PasswordHash.salt(for:secret:)`) is what session
 cookies are keyed by. Deriving that hash took 60 ms of a quiet core at every start, and
 checking the first Basic login against it another 60 ms: in a room of 20 devices starting
 at once on two cores, 2.4 s of CPU before a single document moved.

 So the hash is derived the first time something needs it (a session cookie, a wrong
 password checked as any other), once however many ask at once, and a login (Basic or
 `POST /_session`) with the password given is proved by comparing it with that password:
 the same answer the hash would give, with no weaker stored secret (nothing is stored; the
 environment holds the password anyway). A wrong password still costs a PBKDF2 check, so
 guessing is no cheaper than before. In a room of 20 the 38 replications starting against
 a server each log in with `POST /_session`: one PBKDF2 check apiece on one thread made
 the last wait 3.6 s, and some got 503.
 A `SETTEE_ADMIN` whose value is already a hash is kept as that hash.
 */

/// An admin given at start (`SETTEE_ADMIN`, or a program's `DataDirectory.Options.admins`):
/// its stored hash, or its password as given with its hash derived on first use.
public final class EnvironmentAdmin: Sendable {
    private let given: Given?
    private let derived: Mutex<String?>
    /// The derivation under way: callers meanwhile wait for it rather than queue their own
    /// (one key, `true`: an admin has one hash).
    private let derivation = SingleFlight<Bool, String>()
    /// What a proven `Authorization` header is remembered against (`CredentialCache`): a
    /// token of this entry, so that remembering a login never derives the hash.
    let proofKey: String

    private struct Given: Sendable {
        let password: String
        let digest: [UInt8]
        let salt: String
        let iterations: Int
    }

    /// An admin known by its CouchDB hash only.
    public init(hash: String) {
        given = nil
        derived = Mutex(hash)
        proofKey = hash
    }

    /// An admin given with its password: its hash will be `PasswordHash.hash(password:salt:iterations:)`.
    public init(password: String, salt: String, iterations: Int) {
        given = Given(password: password, digest: Self.digest(password), salt: salt, iterations: iterations)
        derived = Mutex(nil)
        proofKey = "given:" + PasswordHash.randomHex(byteCount: 16)
    }

    /// The CouchDB hash, when known (given as a hash, or derived already).
    public var knownHash: String? { derived.withLock { $0 } }

    /// The CouchDB hash of the password, derived the first time (PBKDF2 on the calling
    /// thread: call it from `PasswordHashing`'s threads). Two first calls at once may both
    /// derive it; they derive the same hash.
    public func derivedHash() -> String {
        if let known = knownHash { return known }
        let made = given.map { PasswordHash.hash(password: $0.password, salt: $0.salt, iterations: $0.iterations) } ?? ""
        return derived.withLock { hash in
            if hash == nil { hash = made }
            return hash ?? made
        }
    }

    /// The CouchDB hash, derived on `hashing`'s threads the first time (once, however many ask at once:
    /// a room's peers each log in with `POST /_session` as their replications start).
    /// - Throws: 503 when too many password checks are waiting (`PasswordHashing`); a later call tries again.
    func hash(on hashing: PasswordHashing) async throws -> String {
        if let known = knownHash { return known }
        return try await derivation.run(true) { try await hashing.derive(self) }
    }

    /// Whether `password` is the one this admin was given: compared as SHA-256 digests in
    /// constant time (no early exit, no length). False when only a hash is known.
    public func isGivenPassword(_ password: String) -> Bool {
        guard let given else { return false }
        let other = Self.digest(password)
        var difference: UInt8 = 0
        for index in given.digest.indices { difference |= given.digest[index] ^ other[index] }
        return difference == 0
    }

    private static func digest(_ password: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(password.utf8)))
    }
}
