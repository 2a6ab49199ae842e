@testable import SetteeServer
import Testing

@Suite struct CredentialCacheTests {
    @Test func aRememberedHeaderProvesItsNameOnlyWhileTheStoredHashIsUnchanged() {
        let cache = CredentialCache()
        let hash = PasswordHash.hash(password: "pw", iterations: 10)
        let header = "Basic YWRtaW46cHc="
        #expect(cache.name(forAuthorization: header, storedHash: { _ in hash }) == nil)
        cache.remember(authorization: header, name: "admin", hash: hash)
        #expect(cache.name(forAuthorization: header, storedHash: { $0 == "admin" ? hash : nil }) == "admin")
        // Another header (a wrong password) is not vouched for by the first one.
        #expect(cache.name(forAuthorization: "Basic YWRtaW46d3Jvbmc=", storedHash: { _ in hash }) == nil)
        // A changed or removed admin entry makes the remembered header worthless.
        let changed = PasswordHash.hash(password: "new", iterations: 10)
        #expect(cache.name(forAuthorization: header, storedHash: { _ in changed }) == nil)
        #expect(cache.name(forAuthorization: header, storedHash: { _ in nil }) == nil)
    }

    @Test func isBounded() {
        let cache = CredentialCache(capacity: 2)
        for index in 0..<3 { cache.remember(authorization: "h\(index)", name: "n", hash: "x") }
        let remembered = (0..<3).filter { cache.name(forAuthorization: "h\($0)", storedHash: { _ in "x" }) != nil }
        #expect(remembered.count <= 2)
        #expect(remembered.contains(2))
    }

    /// A room's peers all ask a server that has just started at once, with the same
    /// credentials: one PBKDF2 for all of them. Each used to queue its own on the hashing
    /// thread, and past the queue's limit got 503 (here: 2 waiting, 12 asking).
    @Test func checksOfOneCredentialAtOnceShareOneHashing() async throws {
        let cache = CredentialCache()
        let hashing = PasswordHashing(threadCount: 1, queueLimit: 2, maximumWait: 30)
        let hash = PasswordHash.hash(password: "pw", iterations: 600_000)
        let results = await withTaskGroup(of: Bool?.self) { group in
            for _ in 0..<12 {
                group.addTask { try? await cache.verify(name: "admin", password: "pw", against: hash, on: hashing) }
            }
            return await group.reduce(into: [Bool?]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 12))
        // A wrong password asked at once by several is refused to each.
        let wrong = await withTaskGroup(of: Bool?.self) { group in
            for _ in 0..<6 {
                group.addTask { try? await cache.verify(name: "admin", password: "px", against: hash, on: hashing) }
            }
            return await group.reduce(into: [Bool?]()) { $0.append($1) }
        }
        #expect(wrong == Array(repeating: false, count: 6))
    }
}
