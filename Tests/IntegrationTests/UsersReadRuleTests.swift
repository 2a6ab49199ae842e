import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue 46, item 7: `_users`' read rule on every path that hands a document to code
/// or to a client. With an admin-written design document in `_users`, a user must not
/// read another user's `derived_key` and `salt` through a view, a list, a show, an
/// update or a COPY. Every answer below is what Apache CouchDB 3.4.3 gave for the same
/// requests on this machine (2026-11-27, `users_db_security_editable` and an empty
/// `_security`): views and lists 403 `forbidden` "Only administrators can view design
/// docs in the users database." (to anonymous too), shows and updates run with a null
/// document for another's id and the document for one's own, the design document
/// itself 403, a COPY of another's document 404 "missing".
@Suite(.serialized) struct UsersReadRuleTests {
    static let designDocument = #"""
        {"views":{"all":{"map":"function(doc){ emit(doc._id, [doc.derived_key, doc.salt]) }"}},
         "shows":{"doc":"function(doc, req){ return JSON.stringify({doc: doc, id: req.id}) }"},
         "lists":{"rows":"function(head, req){ var r; while ((r = getRow())) { send(JSON.stringify(r)) } }"},
         "updates":{"peek":"function(doc, req){ return [null, JSON.stringify({doc: doc, id: req.id})] }"}}
        """#
    static let refusal = "Only administrators can view design docs in the users database."

    static func server(_ dir: TempDirectory) throws -> SetteeProcess {
        let settee = try UsersGrantTests.openSignUpServer(dir)
        for name in ["ann", "bob"] {
            #expect(try settee.adminRequest("PUT", "/_users/org.couchdb.user:\(name)",
                                            json: #"{"name":"\#(name)","password":"pw","roles":[],"type":"user"}"#).status == 201)
        }
        #expect(try settee.adminRequest("PUT", "/_users/_design/leak", json: designDocument).status == 201)
        return settee
    }

    @Test func viewsAndListsAreForUsersAdmins() throws {
        let dir = try TempDirectory(prefix: "users-views")
        let settee = try Self.server(dir)
        defer { settee.kill(SIGKILL) }
        // The admin's view works and does hold the hashes: what the others must not reach.
        let adminView = try settee.adminRequest("GET", "/_users/_design/leak/_view/all")
        #expect(adminView.status == 200 && adminView.text.contains(#""org.couchdb.user:bob""#))
        let bobKey = try settee.adminRequest("GET", "/_users/org.couchdb.user:bob").json?["derived_key"]?.stringValue ?? "?"
        for user in [("ann", "pw"), nil] as [(String, String)?] {
            for (method, path, body) in [("GET", "/_users/_design/leak/_view/all", nil),
                                         ("POST", "/_users/_design/leak/_view/all", #"{"keys":["org.couchdb.user:bob"]}"#),
                                         ("POST", "/_users/_design/leak/_view/all/queries", #"{"queries":[{}]}"#),
                                         ("GET", "/_users/_design/leak/_list/rows/all", nil),
                                         ("GET", "/_users/_design/leak", nil)] {
                let answer = try UsersSignupTests.call(settee, method, path, user: user, json: body)
                #expect(answer.status == 403, "\(method) \(path) as \(user?.0 ?? "anonymous")")
                #expect(answer.json?["reason"]?.stringValue == Self.refusal)
                #expect(!answer.text.contains(bobKey))
            }
            // Listed, but not shown (CouchDB 3.4.3: `"doc": null`).
            let listed = try UsersSignupTests.call(settee, "GET", "/_users/_design_docs?include_docs=true", user: user)
            let rows = listed.json?["rows"]?.arrayValue ?? []
            #expect(rows.contains { $0["id"] == "_design/leak" } && rows.allSatisfy { $0["doc"] == .null })
        }
        let shown = try settee.adminRequest("GET", "/_users/_design_docs?include_docs=true").json?["rows"]?.arrayValue ?? []
        #expect(shown.contains { $0["doc"]?["views"] != nil })
    }

    @Test func showsAndUpdatesGetOnlyWhatTheUserMayRead() throws {
        let dir = try TempDirectory(prefix: "users-shows")
        let settee = try Self.server(dir)
        defer { settee.kill(SIGKILL) }
        let bobKey = try settee.adminRequest("GET", "/_users/org.couchdb.user:bob").json?["derived_key"]?.stringValue ?? "?"
        for (method, function) in [("GET", "_show/doc"), ("POST", "_update/peek")] {
            let other = try UsersSignupTests.call(settee, method, "/_users/_design/leak/\(function)/org.couchdb.user:bob",
                                                  user: ("ann", "pw"))
            #expect(other.status == 200 && other.json?["doc"] == .null, "\(function): \(other.text)")
            // The id stays the request's, as CouchDB keeps `req.id` when it withholds the document.
            #expect(other.json?["id"]?.stringValue == "org.couchdb.user:bob", "\(function): \(other.text)")
            #expect(!other.text.contains(bobKey))
            let own = try UsersSignupTests.call(settee, method, "/_users/_design/leak/\(function)/org.couchdb.user:ann",
                                                user: ("ann", "pw"))
            #expect(own.json?["doc"]?["derived_key"]?.stringValue != nil, "\(function): \(own.text)")
        }
        let admin = try settee.adminRequest("GET", "/_users/_design/leak/_show/doc/org.couchdb.user:bob")
        #expect(admin.json?["doc"]?["derived_key"]?.stringValue == bobKey)
    }

    @Test func aCopyCannotReadAnotherUsersDocument() throws {
        let dir = try TempDirectory(prefix: "users-copy")
        let settee = try Self.server(dir)
        defer { settee.kill(SIGKILL) }
        for destination in ["_local/stolen", "org.couchdb.user:ann"] {
            var headers = [("Destination", destination)]
            headers.append(("Authorization", "Basic " + Data("ann:pw".utf8).base64EncodedString()))
            let copy = try TestHTTPClient.request("COPY", URL(string: settee.baseURL.absoluteString + "/_users/org.couchdb.user:bob")!,
                                                  headers: headers, body: [])
            #expect(copy.status == 404 && copy.json?["reason"]?.stringValue == "missing", "\(destination): \(copy.text)")
        }
        #expect(try settee.adminRequest("GET", "/_users/_local/stolen").status == 404)
    }

    /// `_find` (CouchDB 3.4.3 answered the user its own document only): no selector can
    /// test or return another user's fields.
    @Test func findReturnsOnlyTheUsersOwnDocument() throws {
        let dir = try TempDirectory(prefix: "users-find")
        let settee = try Self.server(dir)
        defer { settee.kill(SIGKILL) }
        let bobKey = try settee.adminRequest("GET", "/_users/org.couchdb.user:bob").json?["derived_key"]?.stringValue ?? "?"
        func ids(_ answer: TestResponse) -> [String] {
            answer.json?["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } ?? ["status \(answer.status)"]
        }
        for selector in [#"{"type":"user"}"#, #"{"derived_key":{"$eq":"\#(bobKey)"}}"#, #"{"_id":"org.couchdb.user:bob"}"#] {
            let mine = try UsersSignupTests.call(settee, "POST", "/_users/_find", user: ("ann", "pw"),
                                                 json: #"{"selector":\#(selector)}"#)
            #expect(ids(mine) == (selector.contains("type") ? ["org.couchdb.user:ann"] : []), "\(selector)")
            #expect(!mine.text.contains(bobKey))
            #expect(ids(try UsersSignupTests.call(settee, "POST", "/_users/_find", json: #"{"selector":\#(selector)}"#)) == [])
        }
        let all = try settee.adminRequest("POST", "/_users/_find", json: #"{"selector":{"type":"user"}}"#)
        #expect(ids(all) == ["org.couchdb.user:ann", "org.couchdb.user:bob"])
    }
}
