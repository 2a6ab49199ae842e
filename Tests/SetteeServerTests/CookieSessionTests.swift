@testable import SetteeServer
import Testing

@Suite struct CookieSessionTests {
    let sessions = CookieSession(secret: "s3cret", timeout: 600)

    @Test func issuedCookieVerifiesUntilItExpires() {
        let cookie = sessions.issue(name: "admin", passwordHash: "h", now: 1_000)
        #expect(sessions.verify(cookie, now: 1_000, passwordHash: { _ in "h" }) == "admin")
        #expect(sessions.verify(cookie, now: 1_599, passwordHash: { _ in "h" }) == "admin")
        #expect(sessions.verify(cookie, now: 1_600, passwordHash: { _ in "h" }) == nil, "expired")
    }

    @Test func changedPasswordOrSecretEndsTheSession() {
        let cookie = sessions.issue(name: "admin", passwordHash: "h", now: 1_000)
        #expect(sessions.verify(cookie, now: 1_001, passwordHash: { _ in "other" }) == nil)
        #expect(sessions.verify(cookie, now: 1_001, passwordHash: { _ in nil }) == nil)
        let foreign = CookieSession(secret: "else", timeout: 600)
        #expect(foreign.verify(cookie, now: 1_001, passwordHash: { _ in "h" }) == nil)
    }

    @Test func garbageIsRejected() {
        for value in ["", "!!!", "YWRtaW4", CookieSession.base64URL(Array("admin:ZZ:x".utf8))] {
            #expect(sessions.verify(value, now: 1_000, passwordHash: { _ in "h" }) == nil)
        }
    }
}
