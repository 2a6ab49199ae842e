import Foundation
@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import Testing

/// `[chttpd_auth_lockout]`: wrong passwords lock one user out from one address.
@Suite struct LoginLockoutTests {
    private func basic(_ name: String, _ password: String) -> HTTPHeaders {
        ["Authorization": "Basic " + Data("\(name):\(password)".utf8).base64EncodedString()]
    }

    @Test func fiveWrongPasswordsLockThatUserOutFromThatAddressOnly() async throws {
        let harness = try RouterHarness()
        for _ in 0..<5 {
            let wrong = await harness.send("GET", "/_session", headers: basic("admin", "nope"), admin: false,
                                           peer: "10.0.0.1:5000")
            #expect(wrong.status == 401 && wrong.json["reason"] == "Name or password is incorrect.")
        }
        let locked = await harness.send("GET", "/_session", headers: basic("admin", "secret"), admin: false,
                                        peer: "10.0.0.1:6000")
        #expect(locked.status == 403 && locked.json["reason"] == .string(LoginLockout.message))
        let login = await harness.send("POST", "/_session", json: ["name": "admin", "password": "secret"], admin: false,
                                       peer: "10.0.0.1:6001")
        #expect(login.status == 403)
        // Another address is not affected.
        let elsewhere = await harness.send("GET", "/_session", headers: basic("admin", "secret"), admin: false,
                                           peer: "10.0.0.2:5000")
        #expect(elsewhere.status == 200 && elsewhere.json["userCtx"]?["name"] == "admin")
    }

    @Test func failuresAreForgottenAfterTheirLifetime() {
        let lockout = LoginLockout(mode: .enforce, threshold: 2, lifetime: .zero)
        lockout.recordFailure(name: "a", peer: "1.2.3.4:1")
        lockout.recordFailure(name: "a", peer: "1.2.3.4:2")
        #expect(!lockout.isLockedOut(name: "a", peer: "1.2.3.4:3"))
        let counting = LoginLockout(mode: .enforce, threshold: 2, lifetime: .seconds(60))
        counting.recordFailure(name: "a", peer: "[::1]:1")
        #expect(!counting.isLockedOut(name: "a", peer: "[::1]:2"))
        counting.recordFailure(name: "a", peer: "[::1]:3")
        #expect(counting.isLockedOut(name: "a", peer: "[::1]:4"))
        #expect(!counting.isLockedOut(name: "b", peer: "[::1]:4"))
        let warning = LoginLockout(mode: .warn, threshold: 1, lifetime: .seconds(60))
        warning.recordFailure(name: "a", peer: "x:1")
        #expect(!warning.isLockedOut(name: "a", peer: "x:1"))
    }

    @Test func anAgingCookieIsRefreshed() async throws {
        let harness = try RouterHarness()
        let authenticator = harness.router.state.authenticator
        guard case .hash(let hash)? = authenticator.admins.stored("admin") else { Issue.record("no admin"); return }
        let now = Authenticator.now()
        let fresh = authenticator.sessions.issue(name: "admin", passwordHash: hash, now: now)
        let aging = authenticator.sessions.issue(name: "admin", passwordHash: hash, now: now - 120)
        let keep = await harness.send("GET", "/_session", headers: ["Cookie": "AuthSession=\(fresh)"], admin: false)
        #expect(keep.json["userCtx"]?["name"] == "admin" && keep.headers["Set-Cookie"] == nil)
        let renew = await harness.send("GET", "/_session", headers: ["Cookie": "AuthSession=\(aging)"], admin: false)
        #expect(renew.json["userCtx"]?["name"] == "admin")
        let renewed = try #require(renew.headers["Set-Cookie"])
        #expect(renewed.hasPrefix("AuthSession=") && !renewed.hasPrefix("AuthSession=\(aging)") && renewed.contains("Max-Age=600"))
    }

    @Test func aBasicValueThatIsNotBase64IsABadRequest() async throws {
        let harness = try RouterHarness()
        let bad = await harness.send("GET", "/_session", headers: ["Authorization": "Basic !!!"], admin: false)
        #expect(bad.status == 400 && bad.json["reason"] == "Authorization header has invalid base64 value")
        let noColon = await harness.send("GET", "/_session", headers: ["Authorization": "Basic Zm9v"], admin: false)
        #expect(noColon.status == 200 && noColon.json["userCtx"]?["name"] == .null)
    }
}
