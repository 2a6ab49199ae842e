@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import Testing

/// View answers as CouchDB 3.4.3 gives them (view_errors_test.exs, reduce_builtin_test.exs).
@Suite struct ViewHandlersTests {
    func harness() async throws -> RouterHarness {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        let docs: [JSONValue] = (0..<4).map { ["_id": .string(String($0)), "n": .number(JSONNumber($0))] }
        #expect(await h.send("POST", "/db/_bulk_docs", json: ["docs": .array(docs)]).status == 201)
        let ddoc: JSONValue = ["views": ["v": ["map": "function(doc) { emit(doc.n, doc.n); }", "reduce": "_sum"]]]
        #expect(await h.send("PUT", "/db/_design/d", json: ddoc).status == 201)
        return h
    }

    /// couch_mrview_util:determine_group_level/1: `group_level=0` is one row keyed null, even
    /// with `group=true`; it grouped exact keys.
    @Test func groupLevelZeroIsOneRow() async throws {
        let h = try await harness()
        for path in ["/db/_design/d/_view/v?group_level=0", "/db/_design/d/_view/v?group=true&group_level=0"] {
            #expect(await h.send("GET", path).json["rows"] == [["key": .null, "value": 6]], "\(path)")
        }
        #expect(await h.send("GET", "/db/_design/d/_view/v?group=true").json["rows"]?.arrayValue?.count == 4)
    }

    /// A POST body's counts must be JSON integers (couch_mrview_http:parse_param/4); the
    /// query string applies to each of `queries`, whose own options win over it.
    @Test func bodyParametersAndQueries() async throws {
        let h = try await harness()
        let refused = await h.send("POST", "/db/_design/d/_view/v", json: ["limit": "1", "reduce": false])
        #expect(refused.status == 400 && refused.json == ["error": "query_parse_error", "reason": #"Invalid value for integer: <<"1">>"#])
        let spelled = await h.send("POST", "/db/_design/d/_view/v", json: ["reduce": "false", "limit": 1])
        #expect(spelled.json["rows"]?.arrayValue?.count == 1)
        let queries = await h.send("POST", "/db/_design/d/_view/v/queries?limit=1&reduce=false",
                                   json: ["queries": [[:], ["limit": 3]]])
        let results = queries.json["results"]?.arrayValue ?? []
        #expect(results.map { $0["rows"]?.arrayValue?.count } == [1, 3])
        let keys = await h.send("POST", "/db/_design/d/_view/v/queries", json: ["queries": [["keys": "x"]]])
        #expect(keys.status == 400 && keys.json["error"] == "query_parse_error")
    }

    /// A view's `update_seq` is its index's: with stale=ok after a write, the sequence before
    /// it (view_update_seq_test.exs: CouchDB 3.4.3 answers 101 where the database is at 102).
    @Test func updateSeqIsTheIndexSequence() async throws {
        let h = try await harness()
        let built = await h.send("GET", "/db/_design/d/_view/v?update_seq=true&reduce=false").json["update_seq"]
        #expect(await h.send("PUT", "/db/x", json: ["n": 9]).status == 201)
        for path in ["/db/_design/d/_view/v?update_seq=true&reduce=false&stale=ok", "/db/_design/d/_view/v?update_seq=true&stale=ok"] {
            #expect(await h.send("GET", path).json["update_seq"] == built, "\(path)")
        }
        #expect(await h.send("GET", "/db/_design/d/_view/v?update_seq=true").json["update_seq"] != built)
    }

    /// fabric_view_map reverses `keys` when descending (view_multi_key_design_test.exs
    /// "dir descending works"): keys [0, 2] read key 2's rows first; a reduce keeps the order.
    @Test func descendingReversesTheKeysOfAMapQuery() async throws {
        let h = try await harness()
        let map = await h.send("POST", "/db/_design/d/_view/v?reduce=false&descending=true", json: ["keys": [0, 2]])
        #expect(map.json["rows"]?.arrayValue?.map { $0["key"] } == [2, 0])
        let reduce = await h.send("POST", "/db/_design/d/_view/v?group=true&descending=true", json: ["keys": [0, 2]])
        #expect(reduce.json["rows"]?.arrayValue?.map { $0["key"] } == [0, 2])
    }

    /// A key with more rows than a query writes on the event loop's thread (`LightViewQuery.loopRows`):
    /// the GET (which starts there, reading a first page of at most that many) answers the same
    /// bytes as the POST of the same options (which never does), at every edge of that page.
    @Test func aKeyOfManyRowsAnswersAsThePoolDoes() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        let rows = LightViewQuery.loopRows + 44
        let docs: [JSONValue] = (0..<rows + 10).map { ["_id": .string("d\($0)"), "k": .number(JSONNumber($0 < rows ? 5 : $0))] }
        #expect(await h.send("POST", "/db/_bulk_docs", json: ["docs": .array(docs)]).status == 201)
        #expect(await h.send("PUT", "/db/_design/d", json: ["views": ["v": ["map": "function(doc) { emit(doc.k, null); }"]]]).status == 201)
        let loop = LightViewQuery.loopRows
        let options: [[String: JSONValue]] = [
            [:], ["skip": .number(JSONNumber(loop))], ["limit": .number(JSONNumber(loop))],
            ["limit": .number(JSONNumber(loop + 1))], ["skip": 10, "limit": .number(JSONNumber(rows))],
            ["descending": true], ["skip": .number(JSONNumber(rows))], ["limit": 0],
        ]
        for extra in options {
            var body = extra
            body["key"] = 5
            let query = body.map { "\($0.key)=\(JSONWriter.string($0.value))" }.sorted().joined(separator: "&")
            let get = await h.send("GET", "/db/_design/d/_view/v?" + query)
            let post = await h.send("POST", "/db/_design/d/_view/v", json: .object(JSONObject(body.map { ($0.key, $0.value) })))
            #expect(get.status == 200 && get.body == post.body, "\(query)")
            let skip = extra["skip"]?.intValue ?? 0, limit = extra["limit"]?.intValue ?? rows
            #expect(get.json["rows"]?.arrayValue?.count == max(0, min(limit, rows - skip)), "\(query)")
        }
    }
}
