import SetteeJSON
import Testing
@testable import SetteeServer

/// Reduce answers kept by query and index sequence (`ReducedRows`).
@Suite struct ReducedRowsTests {
    @Test func anAnswerIsKeptOnlyForItsSequence() {
        let kept = ReducedRows()
        kept.keep(Array("rows".utf8), for: "q", at: 7)
        #expect(kept.rows("q", at: 7) == Array("rows".utf8))
        #expect(kept.rows("q", at: 8) == nil)
        #expect(kept.rows("other", at: 7) == nil)
        kept.keep(Array("newer".utf8), for: "q", at: 8)
        #expect(kept.rows("q", at: 8) == Array("newer".utf8))
        #expect(kept.rows("q", at: 7) == nil)
    }

    @Test func largeAnswersAreNotKept() {
        let kept = ReducedRows()
        kept.keep([UInt8](repeating: 1, count: ReducedRows.largestKept + 1), for: "q", at: 1)
        #expect(kept.rows("q", at: 1) == nil)
    }

    @Test func everyRowSelectingParameterChangesTheKey() throws {
        func query(_ items: [(name: String, value: String)], body: JSONObject? = nil) throws -> ViewQuery {
            try ViewQuery(QueryOptions(items: items), body: body)
        }
        let key = ReducedRows.key(signature: "s", reduce: "_sum", try query([]))
        #expect(ReducedRows.key(signature: "s", reduce: "_count", try query([])) != key)
        #expect(ReducedRows.key(signature: "t", reduce: "_sum", try query([])) != key)
        let changed = try [
            [("group", "true")], [("group_level", "1")], [("startkey", "1")], [("endkey", "1")], [("key", "1")],
            [("keys", "[1,2]")], [("descending", "true")], [("inclusive_end", "false")], [("skip", "1")],
            [("limit", "1")], [("startkey_docid", "a")], [("endkey_docid", "a")],
        ].map { try query($0) }
        let keys = changed.map { ReducedRows.key(signature: "s", reduce: "_sum", $0) }
        #expect(Set(keys).count == changed.count)
        #expect(!keys.contains(key))
        // `keys` of one key is `key` (CouchDB reads both as the range of that key): the same rows.
        #expect(ReducedRows.key(signature: "s", reduce: "_sum", try query([("keys", "[1]")]))
                == ReducedRows.key(signature: "s", reduce: "_sum", try query([("key", "1")])))
        // update_seq is written apart from the rows: the same rows.
        #expect(ReducedRows.key(signature: "s", reduce: "_sum", try query([("update_seq", "true")])) == key)
    }
}
