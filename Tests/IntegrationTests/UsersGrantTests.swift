import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue 46, item 1: a user may not grant itself a database through its own `_users`
/// document. `settee_pairing` (what `settee pair` writes) opens one database whatever its
/// `_security` says, so only a server admin may write it: refused with 403 `forbidden` to
/// anonymous sign-ups and to users editing their own document, by `PUT` and `_bulk_docs`,
/// changing nothing, and logged once a minute per client.
@Suite(.serialized) struct UsersGrantTests {
    static let grant = #""settee_pairing":{"db":"secret","expires":9999999999,"uses":100,"write_only":false}"#

    /// A server with `_users` open to sign-up (`users_db_security_editable`, empty
    /// `_security`), and a database `secret` whose `_security` names only `alice`.
    static func openSignUpServer(_ dir: TempDirectory) throws -> SetteeProcess {
        let ini = dir.appending("settee.ini")
        try "[couchdb]\nusers_db_security_editable = true\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        #expect(try settee.adminRequest("PUT", "/_users/_security", json: #"{"admins":{},"members":{}}"#).status == 200)
        try makeSecret(settee)
        return settee
    }

    static func makeSecret(_ settee: SetteeProcess) throws {
        #expect(try settee.adminRequest("PUT", "/secret").status == 201)
        #expect(try settee.adminRequest("PUT", "/secret/_security",
                                        json: #"{"members":{"names":["alice"],"roles":[]}}"#).status == 200)
        #expect(try settee.adminRequest("PUT", "/secret/plans", json: #"{"launch":"tuesday"}"#).status == 201)
    }

    /// `name` cannot read or write `secret`.
    static func expectLockedOut(_ settee: SetteeProcess, _ name: String, _ password: String) throws {
        let read = try UsersSignupTests.call(settee, "GET", "/secret/plans", user: (name, password))
        #expect([401, 403].contains(read.status), "\(name) read secret: \(read.status)")
        #expect(read.json?["launch"] == nil)
        let write = try UsersSignupTests.call(settee, "PUT", "/secret/planted", user: (name, password), json: "{}")
        #expect([401, 403].contains(write.status))
        #expect(try settee.adminRequest("GET", "/secret/planted").status == 404)
    }

    @Test func anonymousSignUpWithAPairingGrantIsRefused() throws {
        let dir = try TempDirectory(prefix: "grant-signup")
        let settee = try Self.openSignUpServer(dir)
        defer { settee.kill(SIGKILL) }
        let body = #"{"name":"mallory","password":"pw","roles":[],"type":"user",\#(Self.grant)}"#
        let refused = try UsersSignupTests.call(settee, "PUT", "/_users/org.couchdb.user:mallory", json: body)
        #expect(refused.status == 403)
        #expect(refused.json?["error"]?.stringValue == "forbidden")
        #expect(refused.json?["reason"]?.stringValue == "Only _admin may set settee_pairing")
        #expect(try settee.adminRequest("GET", "/_users/org.couchdb.user:mallory").status == 404)
        try Self.expectLockedOut(settee, "mallory", "pw")
        // Refused twice within the minute: one log line for this client.
        _ = try UsersSignupTests.call(settee, "PUT", "/_users/org.couchdb.user:mallory", json: body)
        let lines = settee.output.split(separator: "\n").filter { $0.contains("refused forbidden from 127.0.0.1") }
        #expect(lines.count == 1, "\(lines)")
    }

    @Test func aUserCannotAddAGrantToItsOwnDocument() throws {
        let dir = try TempDirectory(prefix: "grant-edit")
        let settee = try Self.openSignUpServer(dir)
        defer { settee.kill(SIGKILL) }
        let signUp = try UsersSignupTests.call(settee, "PUT", "/_users/org.couchdb.user:eve",
                                               json: #"{"name":"eve","password":"pw","roles":[],"type":"user"}"#)
        #expect(signUp.status == 201)
        let rev = signUp.json?["rev"]?.stringValue ?? ""
        let edit = #"{"_rev":"\#(rev)","name":"eve","password":"pw","roles":[],"type":"user",\#(Self.grant)}"#
        let put = try UsersSignupTests.call(settee, "PUT", "/_users/org.couchdb.user:eve", user: ("eve", "pw"), json: edit)
        #expect(put.status == 403 && put.json?["reason"]?.stringValue == "Only _admin may set settee_pairing")
        let bulk = try UsersSignupTests.call(settee, "POST", "/_users/_bulk_docs", user: ("eve", "pw"),
                                             json: #"{"docs":[{"_id":"org.couchdb.user:eve",\#(edit.dropFirst())]}"#)
        #expect(bulk.json?.arrayValue?.first?["error"]?.stringValue == "forbidden")
        let stored = try UsersSignupTests.call(settee, "GET", "/_users/org.couchdb.user:eve", user: ("eve", "pw"))
        #expect(stored.json?["_rev"]?.stringValue == rev && stored.json?["settee_pairing"] == nil)
        try Self.expectLockedOut(settee, "eve", "pw")
    }

    /// By default `_users` admits only admins: a user cannot write its own document at all,
    /// so neither a grant nor anything else (CouchDB docs › Security › Authentication Database).
    @Test func byDefaultAUserCannotEditItsOwnDocument() throws {
        let dir = try TempDirectory(prefix: "grant-default")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        try Self.makeSecret(settee)
        let created = try settee.adminRequest("PUT", "/_users/org.couchdb.user:bob",
                                              json: #"{"name":"bob","password":"pw","roles":[],"type":"user"}"#)
        #expect(created.status == 201)
        let rev = created.json?["rev"]?.stringValue ?? ""
        for body in [#"{"_rev":"\#(rev)","name":"bob","roles":[],"type":"user",\#(Self.grant)}"#,
                     #"{"_rev":"\#(rev)","name":"bob","roles":["boss"],"type":"user"}"#] {
            let put = try UsersSignupTests.call(settee, "PUT", "/_users/org.couchdb.user:bob", user: ("bob", "pw"), json: body)
            #expect(put.status == 403 && put.json?["error"]?.stringValue == "forbidden")
        }
        #expect(try settee.adminRequest("GET", "/_users/org.couchdb.user:bob").json?["_rev"]?.stringValue == rev)
        try Self.expectLockedOut(settee, "bob", "pw")
    }
}
