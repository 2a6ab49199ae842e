import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `[chttpd_auth] authentication_db` switched at run time, as CouchDB 3.4.3 reads it on
/// every credential lookup (`chttpd_auth_cache:dbname/0`): users of the switched
/// database log in (Basic and `_session`), those of the old one no longer do; the
/// switched database gets the users-database rules and `_design/_auth`; and the old
/// `_users` keeps its rules (CouchDB's `fabric_util:is_users_db/1`). Not run against the
/// reference CouchDB: switching its setting would reconfigure a server others share.
@Suite struct AuthenticationDatabaseTests {
    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, user: (String, String)? = nil,
                     json: String? = nil, form: String? = nil) throws -> TestResponse {
        var headers: [(String, String)] = []
        let admin = SetteeProcess.defaultAdmin
        let (name, password) = user ?? (admin.name, admin.password)
        // A form login goes without credentials, as a browser's does.
        if form == nil {
            headers.append(("Authorization", "Basic " + Data("\(name):\(password)".utf8).base64EncodedString()))
        }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        if form != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        return try TestHTTPClient.request(method, URL(string: settee.baseURL.absoluteString + path)!, headers: headers,
                                          body: Array((json ?? form ?? "").utf8))
    }

    static func user(_ name: String) -> String {
        #"{"name":"\#(name)","password":"pw-\#(name)","roles":["staff"],"type":"user"}"#
    }

    @Test func switchedDatabaseLogsItsUsersIn() throws {
        let dir = try TempDirectory(prefix: "authdb")
        let ini = dir.appending("settee.ini")
        try "[chttpd_auth]\niterations = 1000\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "PUT", "/_users/org.couchdb.user:old", json: Self.user("old")).status == 201)
        #expect(try Self.call(settee, "PUT", "/accounts").status == 201)
        #expect(try Self.call(settee, "GET", "/accounts/_design/_auth").status == 404)

        let set = try Self.call(settee, "PUT", "/_node/_local/_config/chttpd_auth/authentication_db", json: #""accounts""#)
        #expect(set.status == 200)
        let auth = try Self.call(settee, "GET", "/accounts/_design/_auth")
        #expect(auth.json?["_rev"]?.stringValue == "1-328d326d97fea853158eef1e1bfbc8b2")
        let refused = try Self.call(settee, "PUT", "/accounts/org.couchdb.user:x", json: #"{"name":"x","roles":[]}"#)
        #expect(refused.json?["reason"]?.stringValue == "doc.type must be user")
        #expect(try Self.call(settee, "PUT", "/accounts/org.couchdb.user:new", json: Self.user("new")).status == 201)
        let stored = try Self.call(settee, "GET", "/accounts/org.couchdb.user:new")
        #expect(stored.json?["password"] == nil && stored.json?["derived_key"]?.stringValue != nil)

        let basic = try Self.call(settee, "GET", "/_session", user: ("new", "pw-new"))
        #expect(basic.json?["userCtx"] == ["name": "new", "roles": ["staff"]])
        let login = try Self.call(settee, "POST", "/_session", form: "name=new&password=pw-new")
        #expect(login.status == 200)
        #expect(login.json?["name"]?.stringValue == "new")
        #expect(try Self.call(settee, "GET", "/_session", user: ("old", "pw-old")).status == 401)
        // The old `_users` keeps its rules; the switched database's `_security` is fixed.
        let oldRules = try Self.call(settee, "PUT", "/_users/org.couchdb.user:y", json: #"{"name":"y","roles":[]}"#)
        #expect(oldRules.json?["reason"]?.stringValue == "doc.type must be user")
        #expect(try Self.call(settee, "PUT", "/accounts/_security", json: "{}").status == 403)

        #expect(try Self.call(settee, "DELETE", "/_node/_local/_config/chttpd_auth/authentication_db").status == 200)
        #expect(try Self.call(settee, "GET", "/_session", user: ("old", "pw-old")).status == 200)
        #expect(try Self.call(settee, "GET", "/_session", user: ("new", "pw-new")).status == 401)
    }
}
