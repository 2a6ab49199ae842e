import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue 46, item 9: a lower role cannot cross a boundary by another path than the
/// front door — through JavaScript in design documents, through replication, or through
/// what the server caches about credentials (README, "Security"). Each test drives the
/// real binary; each refusal is also checked to have changed nothing.
@Suite(.serialized) struct SecurityBoundaryTests {
    typealias Credentials = (String, String)

    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, user: Credentials? = nil,
                     json: String? = nil, cookie: String? = nil) throws -> TestResponse {
        var headers: [(String, String)] = []
        if let user { headers.append(("Authorization", "Basic " + Data("\(user.0):\(user.1)".utf8).base64EncodedString())) }
        if let cookie { headers.append(("Cookie", cookie)) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try TestHTTPClient.request(method, URL(string: settee.baseURL.absoluteString + path)!, headers: headers,
                                          body: json.map { Array($0.utf8) } ?? [])
    }

    static func addUser(_ settee: SetteeProcess, _ name: String, roles: String = "[]") throws -> String {
        let created = try settee.adminRequest("PUT", "/_users/org.couchdb.user:\(name)",
                                              json: #"{"name":"\#(name)","password":"pw","roles":\#(roles),"type":"user"}"#)
        #expect(created.status == 201)
        return created.json?["rev"]?.stringValue ?? ""
    }

    /// A member runs an admin's `_update` function: what the function writes is the
    /// member's write, so a design document it returns is refused as the member's PUT is.
    @Test func aFunctionWritesWithTheCallersRights() throws {
        let dir = try TempDirectory(prefix: "boundary-js")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        _ = try Self.addUser(settee, "mia")
        #expect(try settee.adminRequest("PUT", "/notes").status == 201)
        #expect(try settee.adminRequest("PUT", "/notes/_security", json: #"{"members":{"names":["mia"]}}"#).status == 200)
        let app = #"{"updates":{"make":"function(doc, req){ return [JSON.parse(req.body), 'made'] }"}}"#
        #expect(try settee.adminRequest("PUT", "/notes/_design/app", json: app).status == 201)
        let note = try Self.call(settee, "POST", "/notes/_design/app/_update/make", user: ("mia", "pw"),
                                 json: #"{"_id":"note"}"#)
        #expect(note.status == 201)  // the function works for the member
        let design = try Self.call(settee, "POST", "/notes/_design/app/_update/make", user: ("mia", "pw"),
                                   json: #"{"_id":"_design/evil","validate_doc_update":"function(){}"}"#)
        #expect(design.status == 403 && design.json?["error"]?.stringValue == "forbidden", "\(design.text)")
        #expect(try settee.adminRequest("GET", "/notes/_design/evil").status == 404)
    }

    /// In `_users` (open to sign-up), an `_update` function cannot give its caller roles or
    /// a pairing grant, nor touch another user's document.
    @Test func aFunctionInUsersCannotGrantItsCaller() throws {
        let dir = try TempDirectory(prefix: "boundary-js-users")
        let settee = try UsersGrantTests.openSignUpServer(dir)
        defer { settee.kill(SIGKILL) }
        let zedRev = try Self.addUser(settee, "zed")
        let rev = try Self.addUser(settee, "ivy")
        let app = #"{"updates":{"set":"function(doc, req){ var d = JSON.parse(req.body); if (doc) { d._rev = doc._rev } return [d, 'set'] }"}}"#
        #expect(try settee.adminRequest("PUT", "/_users/_design/app", json: app).status == 201)
        let grants = [#""roles":["boss"]"#, #""roles":[],"settee_pairing":{"db":"secret","expires":9999999999,"uses":9}"#]
        for grant in grants {
            let answer = try Self.call(settee, "POST", "/_users/_design/app/_update/set/org.couchdb.user:ivy",
                                       user: ("ivy", "pw"),
                                       json: #"{"_id":"org.couchdb.user:ivy","name":"ivy","type":"user",\#(grant)}"#)
            #expect(answer.status == 403 && answer.json?["error"]?.stringValue == "forbidden", "\(answer.text)")
        }
        let other = try Self.call(settee, "POST", "/_users/_design/app/_update/set/org.couchdb.user:zed",
                                  user: ("ivy", "pw"), json: #"{"_id":"org.couchdb.user:zed","name":"zed","roles":[],"type":"user"}"#)
        // It runs with a null document (ivy may not read zed's), so it cannot even name its revision.
        #expect([403, 404, 409].contains(other.status), "\(other.text)")
        #expect(try settee.adminRequest("GET", "/_users/org.couchdb.user:zed").json?["_rev"]?.stringValue == zedRev)
        #expect(try settee.adminRequest("GET", "/_users/org.couchdb.user:ivy").json?["_rev"]?.stringValue == rev)
        #expect(try Self.call(settee, "GET", "/secret/plans", user: ("ivy", "pw")).status == 403)
    }

    /// `_replicate` by a user: a database named without a URL is refused, and a URL of this
    /// very server (a loopback, internal address) is reached as any other client reaches
    /// it, with the URL's credentials or none, never the server's own.
    @Test func aUsersReplicationGetsNoMoreThanTheUser() throws {
        let dir = try TempDirectory(prefix: "boundary-replicate")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        try UsersGrantTests.makeSecret(settee)
        _ = try Self.addUser(settee, "rex")
        #expect(try settee.adminRequest("PUT", "/mine").status == 201)
        #expect(try settee.adminRequest("PUT", "/mine/_security", json: #"{"members":{"names":["rex"]}}"#).status == 200)
        let local = try Self.call(settee, "POST", "/_replicate", user: ("rex", "pw"),
                                  json: #"{"source":"secret","target":"mine"}"#)
        #expect(local.status == 403 && local.json?["error"]?.stringValue == "forbidden")
        let base = settee.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let host = base.replacingOccurrences(of: "http://", with: "")
        for source in ["\(base)/secret", "http://rex:pw@\(host)/secret"] {
            let remote = try Self.call(settee, "POST", "/_replicate", user: ("rex", "pw"),
                                       json: #"{"source":"\#(source)","target":"http://rex:pw@\#(host)/mine"}"#)
            // The source refused the replicator (401 anonymous, 403 rex), as it refuses any such client.
            #expect([401, 403].contains(remote.status) && remote.json?["error"]?.stringValue == "unauthorized",
                    "\(source): \(remote.status) \(remote.text)")
        }
        // Only http and https: libcurl's other schemes would read files or speak to other
        // services. `file://` names a data directory (sneakernet): for server admins only, 403.
        for (source, status) in [("file:///etc/passwd", 403), ("dict://\(host)/x", 400), ("gopher://\(host)/_x", 400)] {
            let odd = try Self.call(settee, "POST", "/_replicate", user: ("rex", "pw"),
                                    json: #"{"source":"\#(source)","target":"http://rex:pw@\#(host)/mine"}"#)
            #expect(odd.status == status && !odd.text.contains("root:"), "\(source): \(odd.text)")
        }
        let copied = try settee.adminRequest("GET", "/mine/plans")
        #expect(copied.status == 404)
        #expect(try settee.adminRequest("GET", "/mine").json?["doc_count"]?.intValue == 0)
    }

    /// `_replicator` opened to users: a member's view, show or COPY never hands out another
    /// user's replication credentials (GET already strips them).
    @Test func replicatorFunctionsSeeOnlyTheCallersCredentials() throws {
        let dir = try TempDirectory(prefix: "boundary-replicator")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        _ = try Self.addUser(settee, "ruth")
        #expect(try settee.adminRequest("PUT", "/_replicator/_security", json: #"{"admins":{},"members":{}}"#).status == 200)
        let secret = "http://u:hunter2@127.0.0.1:1/a"
        #expect(try settee.adminRequest("PUT", "/_replicator/admins",
                                        json: #"{"source":"\#(secret)","target":"\#(secret)"}"#).status == 201)
        #expect(try Self.call(settee, "PUT", "/_replicator/mine", user: ("ruth", "pw"),
                              json: #"{"source":"\#(secret)","target":"\#(secret)"}"#).status == 201)
        let app = #"{"views":{"all":{"map":"function(doc){ emit(doc._id, doc.source) }"}},"shows":{"doc":"function(doc){ return JSON.stringify({doc: doc}) }"}}"#
        #expect(try settee.adminRequest("PUT", "/_replicator/_design/app", json: app).status == 201)
        #expect(try settee.adminRequest("GET", "/_replicator/_design/app/_view/all").text.contains("hunter2"))
        let view = try Self.call(settee, "GET", "/_replicator/_design/app/_view/all", user: ("ruth", "pw"))
        #expect(view.status == 403 && !view.text.contains("hunter2"))
        let others = try Self.call(settee, "GET", "/_replicator/_design/app/_show/doc/admins", user: ("ruth", "pw"))
        #expect(others.status == 200 && others.json?["doc"] == .null && !others.text.contains("hunter2"))
        let own = try Self.call(settee, "GET", "/_replicator/_design/app/_show/doc/mine", user: ("ruth", "pw"))
        #expect(own.json?["doc"]?["source"]?.stringValue == secret)
        // open_revs, as JSON and as the replicator's multipart, strips them as GET does (CouchDB 3.4.3 too).
        for accept in ["application/json", "multipart/mixed"] {
            let revs = try TestHTTPClient.request("GET", URL(string: settee.baseURL.absoluteString + "/_replicator/admins?open_revs=all")!,
                                                  headers: [("Accept", accept), ("Authorization", "Basic " + Data("ruth:pw".utf8).base64EncodedString())],
                                                  body: [])
            #expect(revs.status == 200 && revs.text.contains("127.0.0.1:1/a") && !revs.text.contains("hunter2"), "\(accept)")
        }
        var headers = [("Destination", "_local/stolen")]
        headers.append(("Authorization", "Basic " + Data("ruth:pw".utf8).base64EncodedString()))
        let copy = try TestHTTPClient.request("COPY", URL(string: settee.baseURL.absoluteString + "/_replicator/admins")!,
                                              headers: headers, body: [])
        #expect(copy.status == 404)
        #expect(try settee.adminRequest("GET", "/_replicator/_local/stolen").status == 404)
    }

    /// A database admin's show cannot serve a page that acts on this origin with a visitor's
    /// cookie (a server admin's): whatever its parts say, HTML is sandboxed (issue 46, item 3).
    @Test func showsAndListsServeHTMLOnlySandboxed() throws {
        let dir = try TempDirectory(prefix: "boundary-csp")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/site").status == 201)
        #expect(try settee.adminRequest("PUT", "/site/doc", json: "{}").status == 201)
        // A page with a script: on this origin it would act with the visitor's cookie.
        let app = #"""
            {"shows":{"body":"function(doc, req){ return {body: '<script>fetch(1)</script>'} }",
                      "json":"function(doc, req){ return {json: '<script>fetch(1)</script>', headers: {'Content-Type': 'text/html'}} }",
                      "data":"function(doc, req){ return {json: {ok: true}} }"},
             "updates":{"html":"function(doc, req){ return [null, {json: '<script>fetch(1)</script>', headers: {'Content-Type': 'text/html'}}] }"}}
            """#
        #expect(try settee.adminRequest("PUT", "/site/_design/app", json: app).status == 201)
        for (method, path) in [("GET", "/site/_design/app/_show/body/doc"), ("GET", "/site/_design/app/_show/json"),
                               ("GET", "/site/_design/app/_show/json/doc"), ("POST", "/site/_design/app/_update/html")] {
            let answer = try settee.adminRequest(method, path)
            #expect(answer.status == 200 && answer.text.contains("<script>"), "\(path): \(answer.status) \(answer.text)")
            #expect(answer.header("Content-Security-Policy") == "sandbox", "\(path)")
        }
        let data = try settee.adminRequest("GET", "/site/_design/app/_show/data")
        #expect(data.header("Content-Type")?.hasPrefix("application/json") == true)
    }
}
