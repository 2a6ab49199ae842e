import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `filter` replications whose source is a database of the server itself (a name, not
/// a URL): the replicator asks the server's JavaScript engine, through
/// `FilterFunctionRunner`, which changes pass; `query_params` are `req.query`. (With
/// URLs the source's `_changes?filter=` runs it: conformance/test_replicate.py.)
@Suite struct FilteredReplicationTests {
    func call(_ settee: SetteeProcess, _ method: String, _ path: String, json: String? = nil) throws -> TestResponse {
        try settee.adminRequest(method, path, json: json)
    }

    @Test func localSourceRunsTheFilterFunction() throws {
        let dir = try TempDirectory(prefix: "filtered")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try call(settee, "PUT", "/source").status == 201)
        let ddoc = #"{"filters":{"even":"function(doc, req) { return doc.n % 2 === 0 && doc.n >= Number(req.query.min); }"}}"#
        #expect(try call(settee, "PUT", "/source/_design/f", json: ddoc).status == 201)
        let docs = (1...8).map { #"{"_id":"n\#($0)","n":\#($0)}"# }.joined(separator: ",")
        #expect(try call(settee, "POST", "/source/_bulk_docs", json: #"{"docs":[\#(docs)]}"#).status == 201)

        let body = #"{"source":"source","target":"target","create_target":true,"filter":"f/even","query_params":{"min":"4"}}"#
        let replicated = try call(settee, "POST", "/_replicate", json: body)
        #expect(replicated.status == 200)
        let rows = try call(settee, "GET", "/target/_all_docs").json?["rows"]?.arrayValue ?? []
        #expect(rows.compactMap { $0["id"]?.stringValue } == ["n4", "n6", "n8"])

        let missing = #"{"source":"source","target":"target","filter":"f/nosuch"}"#
        let refused = try call(settee, "POST", "/_replicate", json: missing)
        #expect(refused.status == 404)
        #expect(refused.json?["error"]?.stringValue == "not_found")
    }
}
