import SetteeHTTP
import SetteeJSON
import Testing

/// `/_session` as CouchDB 3.4.3 answers it (cookie_auth_test.exs; couch_httpd_auth).
@Suite struct SessionHandlersTests {
    /// A refused login clears the cookie; with `?fail=` it is a 302 there, with the error.
    @Test func refusedLoginClearsTheCookieAndFollowsFail() async throws {
        let h = try RouterHarness()
        let plain = await h.send("POST", "/_session", json: ["name": "nobody", "password": "x"], admin: false)
        #expect(plain.status == 401 && plain.json["error"] == "unauthorized")
        #expect(plain.headers["Set-Cookie"]?.hasPrefix("AuthSession=; Version=1; Expires=") == true)
        #expect(plain.headers["Set-Cookie"]?.hasSuffix("; Max-Age=600; Path=/; HttpOnly") == true)
        let logout = await h.send("DELETE", "/_session", admin: false)
        #expect(logout.headers["Set-Cookie"]?.hasPrefix("AuthSession=; Version=1; Expires=") == true)
        #expect(logout.headers["Set-Cookie"]?.hasSuffix("; Max-Age=600; Path=/; HttpOnly") == true)
        let failing = await h.send("POST", "/_session?fail=/failed", json: ["name": "nobody", "password": "x"], admin: false)
        #expect(failing.status == 302 && failing.headers["Location"]?.hasSuffix("/failed") == true)
        #expect(failing.json == ["error": "unauthorized", "reason": "Name or password is incorrect."])
    }

    @Test func wrongContentTypeIsWordedAsCouchDB() async throws {
        let h = try RouterHarness()
        let reply = await h.send("POST", "/_session", body: Array("name=x".utf8), headers: ["Content-Type": "text/plain"], admin: false)
        #expect(reply.status == 415)
        #expect(reply.json["reason"] == "Content-Type must be 'application/x-www-form-urlencoded' or 'application/json'")
    }

    /// couch_httpd_auth:cookie_authentication_handler/1 refuses a cookie that is not `name:time:mac`.
    @Test func malformedCookieIs400() async throws {
        let h = try RouterHarness()
        let reply = await h.send("GET", "/_session", headers: ["Cookie": "AuthSession=garbage"], admin: false)
        #expect(reply.status == 400 && reply.json == ["error": "bad_request",
                                                      "reason": "Malformed AuthSession cookie. Please clear your cookies."])
        #expect(await h.send("GET", "/_session", headers: ["Cookie": "AuthSession=garbage"]).status == 400, "with Basic too")
        #expect(await h.send("GET", "/_session", headers: ["Cookie": "AuthSession="], admin: false).status == 200)
    }
}
