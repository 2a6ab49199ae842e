import SetteeJSON
import Testing

/// `QueryPlanner`: CouchDB 3.4's index choice (mango_cursor_view:choose_best_index/1,
/// mango_idx_view:is_usable/3), case by case.
@Suite struct QueryPlannerTests {
    func index(_ ddoc: String, _ fields: [String], partial: JSONValue? = nil) throws -> MangoIndex {
        try MangoIndex(ddoc: "_design/" + ddoc, name: ddoc, fields: MangoSort(fields: fields, isDescending: false),
                       partialFilter: partial)
    }

    func plan(_ body: JSONValue, _ indexes: [MangoIndex]) throws -> QueryPlan {
        try QueryPlanner.plan(FindRequest(parsing: body), indexes: indexes)
    }

    @Test func noIndexFallsBackToAllDocsWithWarning() throws {
        let chosen = try plan(["selector": ["a": 1]], [index("b", ["b"])])
        #expect(chosen.index.isSpecial)
        #expect(chosen.warnings == ["No matching index found, create an index to optimize query time."])
    }

    @Test func indexNeedsEveryColumnRequired() throws {
        let ab = try index("ab", ["a", "b"])
        #expect(try plan(["selector": ["a": 1]], [ab]).index.isSpecial)
        #expect(try plan(["selector": ["a": 1, "b": ["$exists": true]]], [ab]).index.name == "ab")
        // $exists: false does not require the field.
        #expect(try plan(["selector": ["a": 1, "b": ["$exists": false]]], [ab]).index.isSpecial)
        // An $or requires what every branch requires.
        #expect(try plan(["selector": ["$or": [["a": 1, "b": 2], ["a": 2, "b": 1]]]], [ab]).index.name == "ab")
        #expect(try plan(["selector": ["$or": [["a": 1, "b": 2], ["a": 2]]]], [ab]).index.isSpecial)
    }

    @Test func closestPrefixThenFewestColumns() throws {
        let a = try index("a", ["a"])
        let ab = try index("ab", ["a", "b"])
        let abc = try index("abc", ["a", "b", "c"])
        #expect(try plan(["selector": ["a": 1, "b": 2]], [a, ab]).index.name == "ab")
        #expect(try plan(["selector": ["a": 1]], [ab, a]).index.name == "a")
        #expect(try plan(["selector": ["a": 1, "b": 2, "c": ["$gt": 0]]], [a, ab, abc]).index.name == "abc")
    }

    @Test func sortNeedsAnIndex() throws {
        #expect(throws: MangoError.self) { try plan(["selector": ["a": 1], "sort": ["b"]], []) }
        let ab = try index("ab", ["a", "b"])
        // b after a fixed by $eq; the sort field itself need not be in the selector.
        #expect(try plan(["selector": ["a": 1], "sort": ["b"]], [ab]).index.name == "ab")
        #expect(throws: MangoError.self) { try plan(["selector": ["a": ["$gt": 1]], "sort": ["b"]], [ab]) }
        #expect(try plan(["selector": ["_id": ["$gt": nil]], "sort": ["_id"]], []).index.isSpecial)
    }

    @Test func partialIndexesOnlyWhenNamed() throws {
        let partial = try index("p", ["a"], partial: ["live": true])
        #expect(try plan(["selector": ["a": 1]], [partial]).index.isSpecial)
        #expect(try plan(["selector": ["a": 1], "use_index": "p"], [partial]).index.name == "p")
    }

    @Test func useIndexWithoutFallback() throws {
        let a = try index("a", ["a"])
        #expect(throws: MangoError.self) {
            try plan(["selector": ["b": 1], "use_index": "a", "allow_fallback": false], [a])
        }
        let fallback = try plan(["selector": ["b": 1], "use_index": "a"], [a])
        #expect(fallback.index.isSpecial)
        #expect(fallback.warnings.first?.hasPrefix("_design/a was not used") == true)
    }

    @Test func rangesFromEqualityPrefixAndBounds() throws {
        let ab = try index("ab", ["a", "b"])
        let chosen = try plan(["selector": ["a": "x", "b": ["$gt": 1, "$lte": 5]]], [ab])
        var low = IndexKeyEncoding.encode("x")
        var high = low
        IndexKeyEncoding.append(1, to: &low)
        IndexKeyEncoding.append(5, to: &high)
        #expect(chosen.range.lower == IndexKeyEncoding.upperBound(low))
        #expect(chosen.range.upper == IndexKeyEncoding.upperBound(high))
        #expect(try plan(["selector": ["a": ["$gt": 5, "$lt": 1], "b": 1]], [ab]).isEmpty)
    }

    @Test func indexFromDesignDocument() throws {
        let body = try JSONReader.parse(#"""
            {"language":"query","views":{"y":{"map":{"fields":{"year":"desc"},"partial_filter_selector":{}},
             "reduce":"_count","options":{"def":{"fields":[{"year":"desc"}]}}},
             "bad":{"map":"function(doc){}"}}}
            """#)
        let indexes = MangoIndex.indexes(designDocumentID: "_design/d", body: body)
        #expect(indexes.map(\.name) == ["y"])
        #expect(indexes.first?.isDescending == true)
        #expect(MangoIndex.indexes(designDocumentID: "_design/js", body: ["views": [:]]).isEmpty)
    }

    @Test func documentsMissingAFieldAreNotIndexed() throws {
        let ab = try index("ab", ["a", "b"])
        #expect(ab.key(id: "x", rev: "1-a", body: ["a": 1]) == nil)
        #expect(ab.key(id: "x", rev: "1-a", body: ["a": 1, "b": nil]) != nil)
        #expect(ab.key(id: "_design/x", rev: "1-a", body: ["a": 1, "b": 2]) == nil)
        let partial = try index("p", ["a"], partial: ["a": ["$gt": 1]])
        #expect(partial.key(id: "x", rev: "1-a", body: ["a": 1]) == nil)
        #expect(partial.key(id: "x", rev: "1-a", body: ["a": 2]) != nil)
    }
}
