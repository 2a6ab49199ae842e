import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `_users` opened to everyone (`[couchdb] users_db_security_editable = true`, then an
/// empty `_security`), as a self-sign-up app sets it up. Every answer below is what
/// Apache CouchDB 3.4.3 gave for the same requests on this machine (2026-11-25): anonymous
/// sign-up without roles is 201, with roles 403; listings need a server admin; a user
/// document reads only for its own user, and is "missing" for anyone else.
@Suite(.serialized) struct UsersSignupTests {
    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, user: (String, String)? = nil,
                     json: String? = nil) throws -> TestResponse {
        var headers: [(String, String)] = []
        if let user { headers.append(("Authorization", "Basic " + Data("\(user.0):\(user.1)".utf8).base64EncodedString())) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try TestHTTPClient.request(method, URL(string: settee.baseURL.absoluteString + path)!, headers: headers,
                                          body: json.map { Array($0.utf8) } ?? [])
    }

    @Test func anonymousSignUpIsAUserWithoutRolesWhoSeesOnlyTheirOwnDocument() throws {
        let dir = try TempDirectory(prefix: "signup")
        let ini = dir.appending("settee.ini")
        try "[couchdb]\nusers_db_security_editable = true\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        defer { settee.kill(SIGKILL) }
        let admin = SetteeProcess.defaultAdmin
        // Closed by default: CouchDB 3's _users admits admins only.
        let closed = try Self.call(settee, "PUT", "/_users/org.couchdb.user:early",
                                   json: #"{"name":"early","password":"apple","roles":[],"type":"user"}"#)
        #expect(closed.status == 401)
        #expect(try Self.call(settee, "PUT", "/_users/_security", user: (admin.name, admin.password),
                              json: #"{"admins":{"names":[],"roles":[]},"members":{"names":[],"roles":[]}}"#).status == 200)

        let signUp = try Self.call(settee, "PUT", "/_users/org.couchdb.user:ann",
                                   json: #"{"name":"ann","password":"apple","roles":[],"type":"user"}"#)
        #expect(signUp.status == 201)
        let withRoles = try Self.call(settee, "PUT", "/_users/org.couchdb.user:bob",
                                      json: #"{"name":"bob","password":"apple","roles":["boss"],"type":"user"}"#)
        #expect(withRoles.status == 403)
        #expect(withRoles.json?["reason"]?.stringValue == "Only _admin may set roles")
        #expect(try Self.call(settee, "GET", "/_session", user: ("bob", "apple")).status == 401)
        let session = try Self.call(settee, "GET", "/_session", user: ("ann", "apple"))
        #expect(session.json?["userCtx"]?["name"]?.stringValue == "ann")

        for user in [nil, ("ann", "apple")] as [(String, String)?] {
            for (method, path, body) in [("GET", "/_users/_changes", nil), ("GET", "/_users/_all_docs", nil),
                                         ("POST", "/_users/_all_docs", #"{"keys":["org.couchdb.user:ann"]}"#)] {
                let listing = try Self.call(settee, method, path, user: user, json: body)
                #expect(listing.status == 401, "\(method) \(path) as \(user?.0 ?? "anonymous")")
                #expect(listing.json?["reason"]?.stringValue == "You are not a server admin.")
            }
        }
        let anonymousRead = try Self.call(settee, "GET", "/_users/org.couchdb.user:ann")
        #expect(anonymousRead.status == 404)
        #expect(anonymousRead.json?["reason"]?.stringValue == "missing")
        let own = try Self.call(settee, "GET", "/_users/org.couchdb.user:ann", user: ("ann", "apple"))
        #expect(own.status == 200 && own.json?["derived_key"] != nil && own.json?["password"] == nil)
        let bulk = try Self.call(settee, "POST", "/_users/_bulk_get",
                                 json: #"{"docs":[{"id":"org.couchdb.user:ann"}]}"#)
        #expect(bulk.json?["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["error"]?["error"]?.stringValue == "not_found")
        #expect(try Self.call(settee, "GET", "/_users/_changes", user: (admin.name, admin.password)).status == 200)
    }

    /// CouchDB's `_users` checks who writes a user document (couch_users_db:before_doc_update:
    /// a user other than the one the id names, unless an admin, is `not_found`) before any
    /// `validate_doc_update` runs: no design function ever sees another user's stored
    /// document (its hash) through such a write, and the answer is CouchDB's 404.
    @Test func anotherUsersDocumentIsRefusedBeforeValidationSeesIt() throws {
        let dir = try TempDirectory(prefix: "signup-vdu")
        let ini = dir.appending("settee.ini")
        try "[couchdb]\nusers_db_security_editable = true\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        defer { settee.kill(SIGKILL) }
        let admin = SetteeProcess.defaultAdmin
        let asAdmin = (admin.name, admin.password)
        #expect(try Self.call(settee, "PUT", "/_users/_security", user: asAdmin,
                              json: #"{"admins":{"names":[],"roles":[]},"members":{"names":[],"roles":[]}}"#).status == 200)
        // A validation function that tells what it saw of the stored document.
        let vdu = #"{"validate_doc_update":"function(newDoc, oldDoc, userCtx) { if (oldDoc && oldDoc.name !== userCtx.name && userCtx.roles.indexOf('_admin') < 0) throw({forbidden: 'saw ' + oldDoc.derived_key}); }"}"#
        #expect(try Self.call(settee, "PUT", "/_users/_design/tell", user: asAdmin, json: vdu).status == 201)
        for name in ["ann", "bob"] {
            #expect(try Self.call(settee, "PUT", "/_users/org.couchdb.user:\(name)",
                                  json: #"{"name":"\#(name)","password":"apple","roles":[],"type":"user"}"#).status == 201)
        }
        let bobs = try Self.call(settee, "GET", "/_users/org.couchdb.user:bob", user: asAdmin)
        let rev = bobs.json?["_rev"]?.stringValue ?? ""
        for body in [#"{"_rev":"\#(rev)","name":"bob","password":"pear","roles":[],"type":"user"}"#,
                     #"{"_rev":"\#(rev)","_deleted":true}"#] {
            let write = try Self.call(settee, "PUT", "/_users/org.couchdb.user:bob", user: ("ann", "apple"), json: body)
            #expect(write.status == 404, "\(write.status) \(write.text)")
            #expect(write.json?["error"]?.stringValue == "not_found" && write.json?["reason"]?.stringValue == "missing",
                    "\(write.text)")
            #expect(!write.text.contains("saw"))
        }
        // Unchanged, and Ann's own document is still hers to change.
        #expect(try Self.call(settee, "GET", "/_users/org.couchdb.user:bob", user: asAdmin).json?["_rev"]?.stringValue == rev)
        let anns = try Self.call(settee, "GET", "/_users/org.couchdb.user:ann", user: ("ann", "apple"))
        let own = try Self.call(settee, "PUT", "/_users/org.couchdb.user:ann", user: ("ann", "apple"),
                                json: #"{"_rev":"\#(anns.json?["_rev"]?.stringValue ?? "")","name":"ann","password":"plum","roles":[],"type":"user"}"#)
        #expect(own.status == 201)
    }
}
