import SetteeJSON

/// CouchDB's `reduce_limit` rule for JavaScript reduces (share/server/views.js,
/// `runReduce`): a reduction is refused when its output — `JSON.stringify` of the
/// call's reductions, one here — is longer than 4096 characters and more than half
/// the call's input, the query-server line (`["reduce",[source],[[[key,id],value],...]]`
/// or `["rereduce",[source],[value,...]]`) less the function source's length.
/// The view's row then carries `reduce_overflow_error` "Reduce output must shrink more
/// rapidly: input size: I output size: O". Lengths are JavaScript string lengths
/// (UTF-16 code units), as couchjs measures them.
struct ReduceOverflow: Error, Sendable {
    let reason: String

    /// Checks the calls of one reduce function.
    struct Check: Sendable {
        let source: String

        /// The overflow `result` is, of a call (`reduce` or `rereduce`) given `input`
        /// (built only for an output past 4096 characters); nil when it is allowed.
        func overflow(call: String, input: () -> JSONValue, result: JSONValue) -> ReduceOverflow? {
            let output = JSONWriter.string(.array([result])).utf16.count
            guard output > 4096 else { return nil }
            let line = "[\"" + call + "\",[" + JSONWriter.string(.string(source)) + "]," + JSONWriter.string(input()) + "]"
            let inputSize = line.utf16.count - source.utf16.count
            guard output * 2 > inputSize else { return nil }
            return ReduceOverflow(reason: "Reduce output must shrink more rapidly: input size: \(inputSize) output size: \(output)")
        }
    }
}
