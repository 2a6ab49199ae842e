import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Without JavaScriptCore (the small container image; here `SETTEE_JAVASCRIPT_LIBRARY`
/// names a library that is not there) Settee serves everything but design document
/// functions: views and filters answer 501, design documents are still saved, and a
/// database guarded by a `validate_doc_update` refuses writes (501) rather than take
/// them unchecked.
@Suite struct JavaScriptUnavailableTests {
    func call(_ settee: SetteeProcess, _ method: String, _ path: String, json: String? = nil) throws -> TestResponse {
        try settee.adminRequest(method, path, json: json)
    }

    @Test func designFunctionsAnswer501AndGuardedWritesAreRefused() throws {
        let dir = try TempDirectory(prefix: "nojs")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"),
                                             environment: ["SETTEE_JAVASCRIPT_LIBRARY": dir.appending("missing.so")])
        defer { settee.kill(SIGKILL) }
        #expect(try call(settee, "PUT", "/open").status == 201)
        #expect(try call(settee, "PUT", "/guarded").status == 201)
        let ddoc = #"{"views":{"v":{"map":"function(doc) { emit(doc._id, 1) }"}},"filters":{"f":"function(){return true}"}}"#
        #expect(try call(settee, "PUT", "/open/_design/d", json: ddoc).status == 201)
        let view = try call(settee, "GET", "/open/_design/d/_view/v")
        #expect(view.status == 501)
        #expect(view.json?["error"]?.stringValue == "not_implemented")
        #expect(try call(settee, "GET", "/open/_changes?filter=d/f").status == 501)
        #expect(try call(settee, "PUT", "/open/doc", json: "{}").status == 201)
        // Mango needs no JavaScript.
        #expect(try call(settee, "POST", "/open/_find", json: #"{"selector":{}}"#).status == 200)

        let guardDoc = #"{"validate_doc_update":"function(n) { if (n.bad) throw({forbidden: 'no'}); }"}"#
        #expect(try call(settee, "PUT", "/guarded/_design/g", json: guardDoc).status == 201)
        let refused = try call(settee, "PUT", "/guarded/doc", json: "{}")
        #expect(refused.status == 501)
        #expect(try call(settee, "GET", "/guarded/doc").status == 404)
    }

    /// `_users` holds CouchDB's `_design/_auth` (its revision as CouchDB 3.4.3 shows it),
    /// and user documents are still written and checked without an engine: Settee applies
    /// that function's rules natively and does not run it there. The same function in
    /// another database, or changed by a byte in `_users`, is a function like any other.
    @Test func usersDatabaseNeedsNoEngineForItsBuiltInFunction() throws {
        let dir = try TempDirectory(prefix: "nojs-users")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"),
                                             environment: ["SETTEE_JAVASCRIPT_LIBRARY": dir.appending("missing.so")])
        defer { settee.kill(SIGKILL) }
        let auth = try call(settee, "GET", "/_users/_design/_auth")
        #expect(auth.json?["_rev"]?.stringValue == "1-328d326d97fea853158eef1e1bfbc8b2")
        let user = #"{"name":"ann","password":"apple","roles":[],"type":"user"}"#
        #expect(try call(settee, "PUT", "/_users/org.couchdb.user:ann", json: user).status == 201)
        let refused = try call(settee, "PUT", "/_users/org.couchdb.user:bob", json: #"{"name":"bob","roles":[]}"#)
        #expect(refused.status == 403)
        #expect(refused.json?["reason"]?.stringValue == "doc.type must be user")

        let source = try #require(auth.json?["validate_doc_update"]?.stringValue)
        let copy = JSONWriter.string(["validate_doc_update": .string(source)])
        #expect(try call(settee, "PUT", "/other").status == 201)
        #expect(try call(settee, "PUT", "/other/_design/_auth", json: copy).status == 201)
        #expect(try call(settee, "PUT", "/other/doc", json: "{}").status == 501)

        let changed = JSONWriter.string(["_rev": .string(auth.json?["_rev"]?.stringValue ?? ""),
                                         "validate_doc_update": .string(source + " ")])
        #expect(try call(settee, "PUT", "/_users/_design/_auth", json: changed).status == 201)
        #expect(try call(settee, "PUT", "/_users/org.couchdb.user:cy",
                         json: #"{"name":"cy","password":"apple","roles":[],"type":"user"}"#).status == 501)
    }
}
