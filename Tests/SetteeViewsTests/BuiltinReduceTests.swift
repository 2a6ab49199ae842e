import SetteeJSON
import SetteeViews
import Testing

/// CouchDB's built-in reduces (couch_query_servers.erl builtin_reduce).
@Suite struct BuiltinReduceTests {
    @Test func countSumAndStats() {
        let keys: [JSONValue] = ["a", "b", "a"]
        #expect(BuiltinReduce.count.reduce(keys: keys, values: [1, 2, 3], firstDocumentID: nil) == 3)
        #expect(BuiltinReduce.sum.reduce(keys: keys, values: [1, 2.5, 3], firstDocumentID: nil) == 6.5)
        #expect(BuiltinReduce.sum.reduce(keys: keys, values: [1, 2, 3], firstDocumentID: nil) == 6)
        #expect(BuiltinReduce.stats.reduce(keys: keys, values: [1, 2, 3], firstDocumentID: nil)
                == ["sum": 6, "count": 3, "min": 1, "max": 3, "sumsqr": 14])
        #expect(BuiltinReduce.approxCountDistinct.reduce(keys: keys, values: [1, 2, 3], firstDocumentID: nil) == 2)
    }

    @Test func sumAddsArraysAndObjectsMemberwise() {
        #expect(BuiltinReduce.sum.reduce(keys: [], values: [[1, 2], [10], [0, 0, 5]], firstDocumentID: nil)
                == [11, 2, 5])
        #expect(BuiltinReduce.sum.reduce(keys: [], values: [["a": 1], ["a": 2, "b": [1]]], firstDocumentID: nil)
                == ["a": 3, "b": [1]])
    }

    @Test func sumOfOtherValuesIsAnErrorObject() {
        let out = BuiltinReduce.sum.reduce(keys: [], values: [1, "x"], firstDocumentID: "doc")
        #expect(out["error"] == "builtin_reduce_error")
        #expect(out["caused_by"] == "doc")
        #expect(BuiltinReduce.stats.reduce(keys: [], values: ["x"], firstDocumentID: "d")["error"] == "builtin_reduce_error")
    }
}
