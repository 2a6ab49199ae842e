import SetteeHTTP
import SetteeJSON
import Testing

/// `_changes` options read as CouchDB 3.4.3's couch_changes reads them (changes_test.exs).
@Suite struct ChangesQueryTests {
    /// couch_changes:get_selector_and_fields/1: the selector must be an object and `fields` a list
    /// of strings; mango's refusals carry mango's words, with no prefix.
    @Test func selectorFilterIsCheckedAsCouchDBChecksIt() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        let cases: [(JSONValue, String)] = [
            (["selector": 1], "Selector error: expected a JSON object"), ([:], "Selector error: expected a JSON object"),
            (["selector": ["$foo": 1]], "Invalid operator: $foo"),
            (["selector": ["x": 1], "fields": "x"], "Selector error: fields must be JSON array"),
            (["selector": ["x": 1], "fields": [1]], "Invalid JSON for field spec: 1"),
        ]
        for (body, reason) in cases {
            let answer = await h.send("POST", "/db/_changes?filter=_selector", json: body)
            #expect(answer.status == 400 && answer.json == ["error": "bad_request", "reason": .string(reason)], "\(body)")
        }
        let get = await h.send("GET", "/db/_changes?filter=_selector")
        #expect(get.json["reason"] == "Selector must be specified in POST payload")
    }
}
