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

    @Test func wellFormedMeansThreeParts() {
        #expect(sessions.isWellFormed(sessions.issue(name: "admin", passwordHash: "h", now: 1_000)))
        for value in ["garbage", "!!!", CookieSession.base64URL(Array("admin:ZZ".utf8))] {
            #expect(!sessions.isWellFormed(value), "\(value)")
        }
    }

    @Test func base64URLRoundTripsEveryByteAndLength() {
        // 0xfb 0xff encode to "-" and "_" (base64's "+" and "/"); lengths 0-5 cover every padding.
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf, 0x00, 0x3e]
        for count in 0...bytes.count {
            let text = CookieSession.base64URL(Array(bytes.prefix(count)))
            #expect(!text.contains("+") && !text.contains("/") && !text.contains("="))
            #expect(CookieSession.decodeBase64URL(text) == Array(bytes.prefix(count)))
        }
        #expect(CookieSession.base64URL([0xfb, 0xff]).contains("-") || CookieSession.base64URL([0xfb, 0xff]).contains("_"))
        #expect(CookieSession.decodeBase64URL("a!b") == nil)
    }
}
