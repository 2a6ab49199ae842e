import SetteeHTTP
import SetteeJSON
import Testing

@Suite struct BulkHandlersTests {
    @Test func bulkDocsReportsPerDocumentConflicts() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        _ = await h.send("PUT", "/db/taken", json: [:])
        let r = await h.send("POST", "/db/_bulk_docs", json: ["docs": [["_id": "a"], ["_id": "taken"], ["x": 1]]])
        #expect(r.status == 201)
        let rows = r.json.arrayValue ?? []
        #expect(rows.count == 3)
        #expect(rows[0]["ok"] == true)
        #expect(rows[1]["error"] == "conflict")
        #expect(rows[2]["id"]?.stringValue?.count == 32)
    }

    @Test func bulkDocsAnswerIsExactJSON() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        _ = await h.send("PUT", "/db/taken", json: [:])
        let r = await h.send("POST", "/db/_bulk_docs", json: ["docs": [["_id": "a\"q\n"], ["_id": "taken", "_rev": "1-abc"]]])
        #expect(r.status == 201)
        let rev = r.json.arrayValue?.first?["rev"]?.stringValue ?? "?"
        #expect(r.text == #"[{"ok":true,"id":"a\"q\n","rev":"\#(rev)"},"#
            + #"{"id":"taken","error":"conflict","reason":"Document update conflict."}]"# + "\n")
    }

    @Test func newEditsFalseAnswersEmptyAndIsIdempotent() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let doc: JSONValue = ["_id": "r", "_rev": "2-bb", "_revisions": ["start": 2, "ids": ["bb", "aa"]], "v": 1]
        for _ in 0..<2 {
            let r = await h.send("POST", "/db/_bulk_docs", json: ["new_edits": false, "docs": [doc]])
            #expect(r.status == 201)
            #expect(r.json == [])
        }
        let info = await h.send("GET", "/db")
        #expect(info.json["doc_count"] == 1)
        let changes = await h.send("GET", "/db/_changes")
        #expect(changes.json["results"]?.arrayValue?.count == 1)
    }

    @Test func bulkGetRevsAndMissing() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let rev = await h.send("PUT", "/db/a", json: ["v": 1]).json["rev"] ?? .null
        let r = await h.send("POST", "/db/_bulk_get?revs=true", json: ["docs": [["id": "a", "rev": rev], ["id": "nope"]]])
        let results = r.json["results"]?.arrayValue ?? []
        #expect(results.count == 2)
        #expect(results[0]["docs"]?.arrayValue?.first?["ok"]?["_revisions"]?["start"] == 1)
        #expect(results[1]["docs"]?.arrayValue?.first?["error"]?["error"] == "not_found")
    }

    @Test func revsDiffListsMissingAndPossibleAncestors() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let rev = await h.send("PUT", "/db/a", json: [:]).json["rev"]?.stringValue ?? ""
        let r = await h.send("POST", "/db/_revs_diff", json: ["a": [.string(rev), "2-x"], "b": ["1-y"]])
        #expect(r.json["a"] == ["missing": ["2-x"], "possible_ancestors": [.string(rev)]])
        #expect(r.json["b"] == ["missing": ["1-y"]])
        let none = await h.send("POST", "/db/_revs_diff", json: ["a": [.string(rev)]])
        #expect(none.json == [:])
    }

    @Test func allDocsRangesKeysAndDeleted() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        for id in ["c", "a", "b", "d"] { _ = await h.send("PUT", "/db/\(id)", json: ["id": .string(id)]) }
        let rev = await h.send("GET", "/db/d").json["_rev"]?.stringValue ?? ""
        _ = await h.send("DELETE", "/db/d?rev=\(rev)")
        let all = await h.send("GET", "/db/_all_docs")
        #expect(all.json["total_rows"] == 3)
        #expect(all.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "b", "c"])
        let range = await h.send("GET", "/db/_all_docs?startkey=%22b%22&endkey=%22c%22&inclusive_end=false")
        #expect(range.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
        let desc = await h.send("GET", "/db/_all_docs?descending=true&limit=2&include_docs=true")
        #expect(desc.json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["c", "b"])
        #expect(desc.json["rows"]?.arrayValue?.first?["doc"]?["id"] == "c")
        let keys = await h.send("POST", "/db/_all_docs", json: ["keys": ["b", "zz", "d"]])
        let rows = keys.json["rows"]?.arrayValue ?? []
        #expect(rows[1] == ["key": "zz", "error": "not_found"])
        #expect(rows[2]["value"]?["deleted"] == true)
    }

    @Test func changesFeedNormal() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        for id in ["a", "b", "c"] { _ = await h.send("PUT", "/db/\(id)", json: [:]) }
        let all = await h.send("GET", "/db/_changes")
        #expect(all.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "b", "c"])
        let first = await h.send("GET", "/db/_changes?limit=1")
        #expect(first.json["pending"] == 2)
        let since = first.json["last_seq"].map { JSONWriter.string($0) } ?? ""
        let rest = await h.send("GET", "/db/_changes?since=\(since)")
        #expect(rest.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b", "c"])
        let filtered = await h.send("POST", "/db/_changes?filter=_doc_ids", json: ["doc_ids": ["c"]])
        #expect(filtered.json["results"]?.arrayValue?.count == 1)
        #expect(await h.send("GET", "/db/_changes?since=bogus").status == 400)
        #expect(await h.send("GET", "/db/_changes?feed=nope").status == 400)
    }
}
