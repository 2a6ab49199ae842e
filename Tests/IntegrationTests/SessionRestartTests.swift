import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// A session cookie is signed with the node's secret and the user's salt (CouchDB's
/// `couch_httpd_auth`). The secret is kept in the data directory; the `SETTEE_ADMIN`
/// password, given anew at each start, was hashed with a fresh random salt every time, so
/// a restart ended every admin's session (the web admin logged out). Its salt is now
/// derived from the secret: the cookie made before a restart still signs in after it.
@Suite struct SessionRestartTests {
    static func request(_ settee: SetteeProcess, _ method: String, _ path: String, headers: [(String, String)],
                        body: String = "") throws -> TestResponse {
        try TestHTTPClient.request(method, URL(string: settee.baseURL.absoluteString + path.dropFirst())!,
                                   headers: headers, body: Array(body.utf8))
    }

    @Test func anAdminsCookieOutlivesARestart() throws {
        let dir = try TempDirectory(prefix: "session-restart")
        let admin = SetteeProcess.defaultAdmin
        let login = #"{"name":"\#(admin.name)","password":"\#(admin.password)"}"#
        var settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        let signedIn = try Self.request(settee, "POST", "/_session", headers: [("Content-Type", "application/json")], body: login)
        #expect(signedIn.status == 200)
        let cookie = try #require(signedIn.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        settee.kill(SIGTERM)
        #expect(try settee.waitForExit() == 0)

        settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGTERM); _ = try? settee.waitForExit() }
        let session = try Self.request(settee, "GET", "/_session", headers: [("Cookie", cookie)])
        #expect(session.json?["userCtx"]?["name"]?.stringValue == admin.name, "\(session.text)")
        // A cookie is no key to another node: one with another data directory refuses it.
        let otherDir = try TempDirectory(prefix: "session-other")
        let other = try SetteeProcess.start(dataDirectory: otherDir.appending("data"))
        defer { other.kill(SIGTERM); _ = try? other.waitForExit() }
        let elsewhere = try Self.request(other, "GET", "/_session", headers: [("Cookie", cookie)])
        #expect(elsewhere.json?["userCtx"]?["name"] == .null, "\(elsewhere.text)")
    }
}
