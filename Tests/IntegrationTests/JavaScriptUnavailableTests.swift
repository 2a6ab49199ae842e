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
}
