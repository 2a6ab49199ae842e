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
}
