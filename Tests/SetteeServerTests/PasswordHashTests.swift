import SetteeServer
import Testing

@Suite struct PasswordHashTests {
    @Test func hashesInCouchDB34FormAndVerifies() {
        let stored = PasswordHash.hash(password: "s3cret")
        #expect(stored.hasPrefix("-pbkdf2:sha256-"))
        let parts = stored.dropFirst("-pbkdf2:sha256-".count).split(separator: ",")
        #expect(parts.count == 3)
        #expect(parts.first?.count == 64)   // 32-byte SHA-256 key, hex
        #expect(parts.dropFirst().first?.count == 32)
        #expect(parts.last == "600000")
        #expect(PasswordHash.isHashed(stored))
        #expect(PasswordHash.verify(password: "s3cret", against: stored))
        #expect(!PasswordHash.verify(password: "s3creT", against: stored))
    }

    @Test func saltsDiffer() {
        #expect(PasswordHash.hash(password: "a", iterations: 10) != PasswordHash.hash(password: "a", iterations: 10))
    }

    /// The legacy SHA-1 form from CouchDB's configuration docs (PBKDF2-HMAC-SHA1,
    /// salt used as text). Expected key computed independently (Python hashlib).
    /// The SETTEE_ADMIN salt: the same for one node and name, another for another node or name.
    @Test func derivedSaltsAreStablePerNodeAndName() {
        let salt = PasswordHash.salt(for: "admin", secret: "s1")
        #expect(salt.count == 32 && salt.allSatisfy(\.isHexDigit))
        #expect(PasswordHash.salt(for: "admin", secret: "s1") == salt)
        #expect(PasswordHash.salt(for: "admin", secret: "s2") != salt)
        #expect(PasswordHash.salt(for: "root", secret: "s1") != salt)
        let hash = PasswordHash.hash(password: "pw", salt: salt, iterations: 10)
        #expect(hash == PasswordHash.hash(password: "pw", salt: salt, iterations: 10))
        #expect(PasswordHash.verify(password: "pw", against: hash) && !PasswordHash.verify(password: "px", against: hash))
    }

    @Test func verifiesLegacySHA1Form() {
        let stored = "-pbkdf2-" + Self.pythonPBKDF2SHA1 + ",921a12f74df0c1052b3e562a23cd227f,10"
        #expect(PasswordHash.verify(password: "pass", against: stored))
        #expect(!PasswordHash.verify(password: "Pass", against: stored))
        let explicit = "-pbkdf2:sha-" + Self.pythonPBKDF2SHA1 + ",921a12f74df0c1052b3e562a23cd227f,10"
        #expect(PasswordHash.verify(password: "pass", against: explicit))
    }

    @Test func verifiesSHA256FormComputedElsewhere() {
        let stored = "-pbkdf2:sha256-" + Self.pythonPBKDF2SHA256 + ",921a12f74df0c1052b3e562a23cd227f,50000"
        #expect(PasswordHash.verify(password: "pass", against: stored))
    }

    @Test func verifiesLegacySimpleForm() {
        let stored = "-hashed-" + Self.pythonSimpleSHA1 + ",7f4a3e05e0cbc6f48a0035e3508eef90"
        #expect(PasswordHash.verify(password: "pass", against: stored))
    }

    @Test(arguments: ["secret", "", "-pbkdf2-", "-pbkdf2:md5-aa,bb,10", "-pbkdf2:sha256-aa,bb", "-pbkdf2:sha256-aa,bb,0",
                      "-pbkdf2:sha256-aa,bb,x", "-hashed-abc"])
    func rejectsNonHashes(stored: String) {
        #expect(!PasswordHash.verify(password: "secret", against: stored))
    }

    @Test func recognisesCouchDBPrefixes() {
        #expect(PasswordHash.isHashed("-hashed-x,y"))
        #expect(PasswordHash.isHashed("-pbkdf2-x,y,10"))
        #expect(PasswordHash.isHashed("-pbkdf2:sha512-x,y,10"))
        #expect(!PasswordHash.isHashed("plain"))
        #expect(!PasswordHash.isHashed("-pbkdf2:md5-x,y,10"))
    }
}

extension PasswordHashTests {
    static let pythonPBKDF2SHA1 = "576598ffd9662e78da6e0b5435b8eb9bedb1931a"
    static let pythonPBKDF2SHA256 = "236e1f4751f089199bde7ea59ad383b960552bf31e4f271ab12cb6829a815607"
    static let pythonSimpleSHA1 = "70c7b6abbb0fd8f3747d67f3e12f0818b2339386"
}
