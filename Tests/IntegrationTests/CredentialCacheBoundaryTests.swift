import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue 46, item 9, caches: the server remembers credentials it has checked (Basic
/// headers, `_users` documents, cookies), and a user who loses a role, a password or its
/// account, or an admin removed from `[admins]`, must lose what went with it on the very
/// next request — never keep it from a cache.
@Suite(.serialized) struct CredentialCacheBoundaryTests {
    static func login(_ settee: SetteeProcess, _ name: String, _ password: String) throws -> String {
        let response = try SecurityBoundaryTests.call(settee, "POST", "/_session",
                                                      json: #"{"name":"\#(name)","password":"\#(password)"}"#)
        #expect(response.status == 200)
        return response.header("Set-Cookie")?.split(separator: ";").first.map(String.init) ?? ""
    }

    @Test func aRevokedRoleAndADeletedUserLoseAccessAtOnce() throws {
        let dir = try TempDirectory(prefix: "boundary-cache")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/team").status == 201)
        #expect(try settee.adminRequest("PUT", "/team/_security", json: #"{"members":{"roles":["team"]}}"#).status == 200)
        var rev = try SecurityBoundaryTests.addUser(settee, "kim", roles: #"["team"]"#)
        let cookie = try Self.login(settee, "kim", "pw")
        // Twice each: the second is answered from what the first put in the caches.
        for _ in 0..<2 {
            #expect(try SecurityBoundaryTests.call(settee, "GET", "/team", user: ("kim", "pw")).status == 200)
            #expect(try SecurityBoundaryTests.call(settee, "GET", "/team", cookie: cookie).status == 200)
        }
        let demoted = try settee.adminRequest("PUT", "/_users/org.couchdb.user:kim",
                                              json: #"{"_rev":"\#(rev)","name":"kim","password":"pw","roles":[],"type":"user"}"#)
        #expect(demoted.status == 201)
        rev = demoted.json?["rev"]?.stringValue ?? ""
        #expect(try SecurityBoundaryTests.call(settee, "GET", "/team", user: ("kim", "pw")).status == 403)
        // The new password (hashed anew, with a new salt) ended the old cookie too.
        #expect(try SecurityBoundaryTests.call(settee, "GET", "/team", cookie: cookie).status == 401)
        let cookie2 = try Self.login(settee, "kim", "pw")
        #expect(try SecurityBoundaryTests.call(settee, "GET", "/team", cookie: cookie2).status == 403)
        #expect(try settee.adminRequest("DELETE", "/_users/org.couchdb.user:kim?rev=\(rev)").status == 200)
        #expect(try SecurityBoundaryTests.call(settee, "GET", "/_session", user: ("kim", "pw")).status == 401)
        let anonymous = try SecurityBoundaryTests.call(settee, "GET", "/_session", cookie: cookie2)
        #expect(anonymous.json?["userCtx"]?["name"] == .null)
    }

    @Test func anAdminRemovedFromTheConfigIsNoLongerOne() throws {
        let dir = try TempDirectory(prefix: "boundary-admin")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/_node/_local/_config/admins/temp", json: #""pw-temp""#).status == 200)
        let cookie = try Self.login(settee, "temp", "pw-temp")
        for _ in 0..<2 {
            #expect(try SecurityBoundaryTests.call(settee, "GET", "/_all_dbs", user: ("temp", "pw-temp")).status == 200)
            #expect(try SecurityBoundaryTests.call(settee, "GET", "/_all_dbs", cookie: cookie).status == 200)
        }
        #expect(try settee.adminRequest("DELETE", "/_node/_local/_config/admins/temp").status == 200)
        #expect(try SecurityBoundaryTests.call(settee, "GET", "/_all_dbs", user: ("temp", "pw-temp")).status == 401)
        #expect(try SecurityBoundaryTests.call(settee, "GET", "/_all_dbs", cookie: cookie).status == 401)
        #expect(try SecurityBoundaryTests.call(settee, "PUT", "/_node/_local/_config/admins/temp", user: ("temp", "pw-temp"),
                                               json: #""again""#).status == 401)
    }
}
