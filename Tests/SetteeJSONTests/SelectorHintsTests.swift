import Testing
@testable import SetteeJSON

/// `selector_hints` and the Erlang set order it comes in. Expected values were printed by
/// OTP 25's `erl` (`erlang:phash/2`, `sets:to_list/1`), the runtime of CouchDB 3.4.3.
@Suite struct SelectorHintsTests {
    @Test func slotsAreErlangPhashOf16() {
        let names = ["a", "z", "name", "b.c", "person.address.city", "naïve", ""]
        #expect(names.map { ErlangSetOrder.slot($0) + 1 } == [15, 4, 8, 7, 10, 9, 1])
    }

    @Test func subtractReversesEachBucket() {
        let all = ["q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "aa", "ab", "ac", "ad", "ae", "af", "ag", "ah"]
        #expect(ErlangSetOrder(all).subtracting(["x"]).list
            == ["ac", "ah", "u", "ab", "z", "ag", "t", "aa", "y", "af", "s", "ae", "r", "w", "ad", "q", "v"])
    }

    @Test func hintsOfANormalizedSelector() throws {
        let selector = try JSONReader.parse(#"""
            {"a": {"$gt": 1}, "c": {"$ne": 2}, "d": {"$or": [{"$eq": 1}, {"$eq": 2}]}, "e": {"f": {"$in": [1]}},
             "g": {"$not": {"$eq": 1}}, "h": {"$elemMatch": {"x": 1}}, "$or": [{"z": 1}, {"y": 2}]}
            """#)
        let hints = SelectorHints(normalized: SelectorNormalizer.normalize(selector))
        #expect(hints.indexableFields == ["a"])
        // As Apache CouchDB 3.4.3 answered this selector's _explain.
        #expect(hints.unindexableFields == ["z", "d", "y", "c", "h", "g", "e.f"])
    }

    @Test func onlyTheTopLevelAndIsSeenThrough() throws {
        let selector = try JSONReader.parse(#"{"$or": [{"a": 1}, {"name": "x"}]}"#)
        let hints = SelectorHints(normalized: SelectorNormalizer.normalize(selector))
        #expect(hints.indexableFields.isEmpty)
        #expect(hints.unindexableFields == ["name", "a"])
        #expect(SelectorHints(normalized: .object([:])) == SelectorHints(normalized: SelectorNormalizer.normalize(.object([:]))))
    }
}
