import SetteeJSON
import Testing
@testable import SetteeServer

/// share/server/views.js runReduce's `reduce_limit` rule and message.
@Suite struct ReduceOverflowTests {
    @Test func anOutputPast4096AndHalfTheInputOverflows() throws {
        let source = "function(k, v) { return big; }"
        let check = ReduceOverflow.Check(source: source)
        let big = JSONValue.array((0..<500).map { .string("xxxxxxxxxx\($0)") })
        let input: () -> JSONValue = { [[["a", "a"], 1]] }
        let overflow = try #require(check.overflow(call: "reduce", input: input, result: big))
        #expect(overflow.reason == "Reduce output must shrink more rapidly: input size: 31 output size: 7893")
        #expect(check.overflow(call: "reduce", input: input, result: .int(1)) == nil)
        // As long as the output is at most half the input, it may be large.
        let wide: () -> JSONValue = { .array(Array(repeating: .string(String(repeating: "y", count: 100)), count: 200)) }
        #expect(check.overflow(call: "rereduce", input: wide, result: big) == nil)
    }
}
