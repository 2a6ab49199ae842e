@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import Testing

@Suite struct ServerHandlersTests {
    @Test func welcomeHasCouchDBShape() async throws {
        let h = try RouterHarness()
        let r = await h.send("GET", "/")
        #expect(r.status == 200)
        #expect(r.json["couchdb"] == "Welcome")
        #expect(r.json["uuid"] == "0123456789abcdef0123456789abcdef")
        #expect(r.json["vendor"]?["name"] == "Settee")
        #expect(r.headers["Content-Type"] == "application/json")
    }

    @Test func uuidsAreDistinctHex() async throws {
        let h = try RouterHarness()
        let r = await h.send("GET", "/_uuids?count=5")
        let uuids = r.json["uuids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(uuids.count == 5)
        #expect(Set(uuids).count == 5)
        #expect(uuids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        #expect(await h.send("GET", "/_uuids?count=abc").status == 400)
    }

    @Test func allDbsListsCreatedDatabasesInOrderWithPaging() async throws {
        let h = try RouterHarness()
        for name in ["b", "a", "c"] { #expect(await h.send("PUT", "/\(name)").status == 201) }
        #expect(await h.send("GET", "/_all_dbs").json == ["a", "b", "c"])
        #expect(await h.send("GET", "/_all_dbs?descending=true&limit=2").json == ["c", "b"])
        #expect(await h.send("GET", "/_all_dbs?startkey=%22b%22").json == ["b", "c"])
        #expect(await h.send("GET", "/_all_dbs?skip=1&endkey=%22b%22").json == ["b"])
    }

    @Test func unknownMethodIs405WithAllow() async throws {
        let h = try RouterHarness()
        let r = await h.send("DELETE", "/_all_dbs")
        #expect(r.status == 405)
        #expect(r.json["error"] == "method_not_allowed")
        #expect(r.headers["Allow"] == "GET,HEAD")
    }

    @Test func headIsGetWithoutBody() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        #expect(await h.send("HEAD", "/db").status == 200)
        #expect(await h.send("HEAD", "/nope").status == 404)
    }

    @Test func serverWritesNeedAnAdmin() async throws {
        let h = try RouterHarness()
        let anonymous = await h.send("PUT", "/db", admin: false)
        #expect(anonymous.status == 401)
        #expect(anonymous.json["error"] == "unauthorized")
        // No browser password dialog, as CouchDB (chttpd:error_headers/4), unless asked for.
        #expect(anonymous.headers["WWW-Authenticate"] == nil)
        let asking = await h.send("PUT", "/db", headers: ["X-CouchDB-WWW-Authenticate": "Basic realm=\"x\""], admin: false)
        #expect(asking.headers["WWW-Authenticate"] == "Basic realm=\"x\"")
        let wrong = await h.send("GET", "/", headers: ["Authorization": "Basic YWRtaW46d3Jvbmc="])
        #expect(wrong.status == 401)
    }

    @Test func sessionCookieAuthenticatesLaterRequests() async throws {
        let h = try RouterHarness()
        let login = await h.send("POST", "/_session", body: Array("name=admin&password=secret".utf8),
                                 headers: ["Content-Type": "application/x-www-form-urlencoded"], admin: false)
        #expect(login.status == 200)
        #expect(login.json == ["ok": true, "name": "admin", "roles": ["_admin"]])
        let setCookie = try #require(login.headers["Set-Cookie"])
        let cookie = String(setCookie.split(separator: ";")[0])
        let created = await h.send("PUT", "/viacookie", headers: ["Cookie": cookie], admin: false)
        #expect(created.status == 201)
        let session = await h.send("GET", "/_session", headers: ["Cookie": cookie], admin: false)
        #expect(session.json["userCtx"]?["name"] == "admin")
        #expect(session.json["info"]?["authenticated"] == "cookie")
        let bad = await h.send("POST", "/_session", json: ["name": "admin", "password": "nope"], admin: false)
        #expect(bad.status == 401)
        // A refused login clears the cookie, as couch_httpd_auth:handle_session_req/2 does.
        #expect(bad.headers["Set-Cookie"]?.hasPrefix("AuthSession=;") == true)
        let tampered = await h.send("PUT", "/viacookie2", headers: ["Cookie": cookie + "x"], admin: false)
        #expect(tampered.status == 401)
    }
}

/// Which errors get a log line of their own: faults, not deliberate answers.
@Suite struct CouchErrorLoggingTests {
    @Test func notImplementedIsNotAServerFault() {
        #expect(!CouchError(501, "not_implemented", "views").isServerFault)
        #expect(CouchError(500, "internal_server_error", "disk").isServerFault)
        #expect(CouchError(503, "service_unavailable", "busy").isServerFault)
        #expect(!CouchError(404, "not_found", "missing").isServerFault)
    }
}
