import SetteeJSON
import SetteeViews
import Testing

/// CouchDB's built-in reduces (couch_query_servers.erl builtin_reduce).
@Suite struct BuiltinReduceTests {
    @Test func countSumAndStats() throws {
        let keys: [JSONValue] = ["a", "b", "a"]
        #expect(try BuiltinReduce.count.reduce(keys: keys, values: [1, 2, 3]) == 3)
        #expect(try BuiltinReduce.sum.reduce(keys: keys, values: [1, 2.5, 3]) == 6.5)
        #expect(try BuiltinReduce.sum.reduce(keys: keys, values: [1, 2, 3]) == 6)
        #expect(try BuiltinReduce.stats.reduce(keys: keys, values: [1, 2, 3])
                == ["sum": 6, "count": 3, "min": 1, "max": 3, "sumsqr": 14])
        #expect(try BuiltinReduce.approxCountDistinct.reduce(keys: keys, values: [1, 2, 3]) == 2)
    }

    @Test func sumAddsArraysAndObjectsMemberwise() throws {
        #expect(try BuiltinReduce.sum.reduce(keys: [], values: [[1, 2], [10], [0, 0, 5]])
                == [11, 2, 5])
        #expect(try BuiltinReduce.sum.reduce(keys: [], values: [["a": 1], ["a": 2, "b": [1]]])
                == ["a": 3, "b": [1]])
    }

    /// CouchDB 3.4.3: `_sum` of a string is an error row naming the value; `_stats` of one
    /// fails the query (`invalid_value`, its message quoting the value as Erlang writes it).
    @Test func badInputs() throws {
        let out = try BuiltinReduce.sum.reduce(keys: [], values: [1, "x"])
        #expect(out["error"] == "builtin_reduce_error")
        #expect(out["caused_by"] == "x")
        #expect(throws: BuiltinReduceError.invalidValue("non-numeric _stats input: <<120>>")) {
            try BuiltinReduce.stats.reduce(keys: [], values: ["x", 1])
        }
        #expect(throws: BuiltinReduceError.invalidValue(
            "The _stats function requires that map values be numbers or arrays of numbers, not '<<\"x\">>'")) {
            try BuiltinReduce.stats.reduce(keys: [], values: [1, "x"])
        }
    }

    @Test func statsOfArraysAreElementwise() throws {
        #expect(try BuiltinReduce.stats.reduce(keys: [], values: [[1, 10], [3, 20]])
                == [["sum": 4, "count": 2, "min": 1, "max": 3, "sumsqr": 10],
                    ["sum": 30, "count": 2, "min": 10, "max": 20, "sumsqr": 500]])
    }
}
