import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Compiled design document functions are one database's own (issue #46, item 2): the
/// admin of database `js` writes (with `new_edits: false`) a design document with the
/// id, revision and function source of one in database `v`, and her own `lib` or her own
/// use of the engine's globals. Whatever she runs must never be what `v`'s functions run,
/// and nothing `v`'s functions leave behind may reach hers: she cannot read `v` (403).
@Suite(.serialized) struct DesignFunctionIsolationTests {
    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, user: (String, String),
                     json: String? = nil) throws -> TestResponse {
        var headers = [("Authorization", "Basic " + Data("\(user.0):\(user.1)".utf8).base64EncodedString())]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try TestHTTPClient.request(method, URL(string: settee.baseURL.absoluteString + path)!, headers: headers,
                                          body: json.map { Array($0.utf8) } ?? [])
    }

    static let alice = ("alice", "apple")
    static let mallory = ("mallory", "melon")

    /// A server with `v` (alice its only admin and member) and `js` (mallory's), and a
    /// document `secret` in `v` that mallory is refused.
    static func twoDatabases() throws -> (SetteeProcess, TempDirectory) {
        let dir = try TempDirectory(prefix: "ddoc-isolation")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        let admin = (SetteeProcess.defaultAdmin.name, SetteeProcess.defaultAdmin.password)
        for (name, password, db) in [("alice", "apple", "v"), ("mallory", "melon", "js")] {
            _ = try call(settee, "PUT", "/_users/org.couchdb.user:\(name)", user: admin,
                         json: #"{"name":"\#(name)","password":"\#(password)","roles":[],"type":"user"}"#)
            _ = try call(settee, "PUT", "/\(db)", user: admin)
            let security = #"{"admins":{"names":["\#(name)"],"roles":[]},"members":{"names":["\#(name)"],"roles":[]}}"#
            #expect(try call(settee, "PUT", "/\(db)/_security", user: admin, json: security).status == 200)
        }
        #expect(try call(settee, "PUT", "/v/secret", user: alice, json: #"{"text":"top secret"}"#).status == 201)
        #expect(try call(settee, "GET", "/v/secret", user: mallory).status == 403)
        return (settee, dir)
    }

    /// Writes `body` into `js` as `_design/d` at `rev` (replication-style), as mallory.
    static func copy(_ settee: SetteeProcess, rev: String, body: String) throws {
        let bulk = #"{"new_edits":false,"docs":[\#(body.dropLast()),"_id":"_design/d","_rev":"\#(rev)"}]}"#
        #expect(try call(settee, "POST", "/js/_bulk_docs", user: mallory, json: bulk).status == 201)
    }

    @Test func aShowRunsItsOwnDatabasesLibraryNotACopysWithTheSameRevision() throws {
        let (settee, dir) = try Self.twoDatabases()
        defer { settee.kill(SIGKILL); _ = dir }
        let show = #""shows":{"s":"function(doc, req) { return require('lib/m').render(doc); }"}"#
        let victim = #"{\#(show),"lib":{"m":"exports.render = function(doc) { return 'fine'; };"}}"#
        let saved = try Self.call(settee, "PUT", "/v/_design/d", user: Self.alice, json: victim)
        #expect(saved.status == 201)
        let rev = saved.json?["rev"]?.stringValue ?? ""
        // Her lib keeps every document it is given, and shows them all.
        let spy = "var seen = []; exports.render = function(doc) { if (doc) seen.push(doc); return JSON.stringify(seen); };"
        try Self.copy(settee, rev: rev, body: #"{\#(show),"lib":{"m":"\#(spy)"}}"#)
        #expect(try Self.call(settee, "GET", "/js/_design/d/_show/s", user: Self.mallory).text == "[]")

        let own = try Self.call(settee, "GET", "/v/_design/d/_show/s/secret", user: Self.alice)
        #expect(own.status == 200)
        #expect(own.text == "fine")
        let after = try Self.call(settee, "GET", "/js/_design/d/_show/s", user: Self.mallory)
        #expect(after.status == 200)
        #expect(!after.text.contains("top secret"))
    }

    @Test func aFilterWithTheSameSourceSharesNoStateWithAnotherDatabase() throws {
        let (settee, dir) = try Self.twoDatabases()
        defer { settee.kill(SIGKILL); _ = dir }
        // The same harmless-looking source in both: it remembers the ids it has seen.
        let filter = #"{"filters":{"f":"function(doc, req) { var s = (globalThis.seen = globalThis.seen || {}); s[doc._id] = true; return !!s[req.query.probe]; }"}}"#
        let saved = try Self.call(settee, "PUT", "/v/_design/d", user: Self.alice, json: filter)
        #expect(saved.status == 201)
        try Self.copy(settee, rev: saved.json?["rev"]?.stringValue ?? "", body: filter)
        #expect(try Self.call(settee, "PUT", "/js/mine", user: Self.mallory, json: "{}").status == 201)

        #expect(try Self.call(settee, "GET", "/v/_changes?filter=d/f", user: Self.alice).status == 200)
        let probe = try Self.call(settee, "GET", "/js/_changes?filter=d/f&probe=secret", user: Self.mallory)
        #expect(probe.status == 200)
        #expect(probe.json?["results"]?.arrayValue?.isEmpty == true, "\(probe.text)")
    }
}
