import SetteeHTTP
import SetteeJSON
import Testing

/// `_all_docs` answers as CouchDB 3.4.3 gives them (all_docs_test.exs and its neighbourhood).
@Suite struct AllDocsHandlersTests {
    func harness() async throws -> RouterHarness {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        let docs: [JSONValue] = (0..<4).map { ["_id": .string(String($0))] }
        #expect(await h.send("POST", "/db/_bulk_docs", json: ["docs": .array(docs)]).status == 201)
        return h
    }

    /// A key that is no string names no document: `{"key": 1, "error": "not_found"}`, not
    /// document "1" (fabric_view_all_docs:open_doc/5).
    @Test func nonStringKeysAreNotFound() async throws {
        let h = try await harness()
        let posted = await h.send("POST", "/db/_all_docs", json: ["keys": [1, "2", ["a"], .null]])
        let rows = posted.json["rows"]?.arrayValue
        let missing: [JSONValue] = [["key": 1, "error": "not_found"], ["key": ["a"], "error": "not_found"],
                                    ["key": .null, "error": "not_found"]]
        #expect(rows?.count == 4 && rows?[0] == missing[0] && rows?[1]["id"] == "2")
        #expect(rows?[2] == missing[1] && rows?[3] == missing[2])
        let got = await h.send("GET", "/db/_all_docs?keys=%5B1%5D")
        #expect(got.json["rows"] == .array([missing[0]]))
    }

    /// In `queries`, one key is a `key=` range with its offset, and `keys` that is no list is
    /// query_parse_error (couch_mrview_http:parse_param/4); `queries` itself must be a list.
    @Test func queriesReadKeysAsAViewParameter() async throws {
        let h = try await harness()
        let answer = await h.send("POST", "/db/_all_docs/queries", json: ["queries": [["keys": ["1"]], ["keys": ["2", "0"]], ["keys": [1]]]])
        let results = answer.json["results"]?.arrayValue ?? []
        try #require(results.count == 3)
        #expect(results[0]["offset"] == 1 && results[0]["rows"]?.arrayValue?.count == 1)
        #expect(results[1]["offset"] == .null && results[1]["rows"]?.arrayValue?.count == 2)
        #expect(results[2]["rows"] == [])
        let notList = await h.send("POST", "/db/_all_docs/queries", json: ["queries": [["keys": "x"]]])
        #expect(notList.status == 400 && notList.json == ["error": "query_parse_error", "reason": "`keys` must be an array of strings."])
        let notArray = await h.send("POST", "/db/_all_docs/queries", json: ["queries": [:]])
        #expect(notArray.status == 400 && notArray.json == ["error": "bad_request", "reason": "`queries` member must be an array."])
    }

    /// A POST body's counts and booleans are decoded values (couch_mrview_http:parse_param/4):
    /// `"1"` is no integer, and a refusal prints the value as Erlang does.
    @Test func bodyParametersAreReadAsDecodedValues() async throws {
        let h = try await harness()
        let cases: [(JSONValue, String)] = [
            (["limit": "1"], #"Invalid value for integer: <<"1">>"#), (["limit": -1], "Invalid value for positive integer: -1"),
            (["skip": 1.5], "Invalid value for integer: 1.5"), (["limit": .null], "Invalid value for integer: null"),
            (["descending": 1], "Invalid boolean parameter: 1"), (["limit": ""], "Invalid value for integer: <<>>"),
        ]
        for (body, reason) in cases {
            let answer = await h.send("POST", "/db/_all_docs", json: body)
            #expect(answer.status == 400 && answer.json == ["error": "query_parse_error", "reason": .string(reason)], "\(body)")
        }
        #expect(await h.send("POST", "/db/_all_docs", json: ["descending": "true", "limit": 1]).json["rows"]?.arrayValue?.first?["id"] == "3")
    }
}

