public import SetteeJSON

/// CouchDB's built-in reduce functions, in Swift (couch_query_servers.erl builtin_reduce).
public enum BuiltinReduce: String, Sendable {
    case count = "_count"
    case sum = "_sum"
    case stats = "_stats"
    case approxCountDistinct = "_approx_count_distinct"

    /// Reduces the map values of one group (`keys` are the emitted keys). A value
    /// `_sum` or `_stats` cannot add is CouchDB's `builtin_reduce_error` object.
    public func reduce(keys: [JSONValue], values: [JSONValue], firstDocumentID: String?) -> JSONValue {
        switch self {
        case .count:
            return .int(values.count)
        case .approxCountDistinct:
            return .int(Set(keys.map { IndexKeyEncoding.encode($0) }).count)
        case .sum:
            var total: JSONValue = 0
            for value in values {
                guard let added = Self.add(total, value) else { return Self.sumError(firstDocumentID) }
                total = added
            }
            return total
        case .stats:
            var (sum, min, max, sumsqr) = (0.0, Double.infinity, -Double.infinity, 0.0)
            for value in values {
                guard let number = value.doubleValue else {
                    return ["error": "builtin_reduce_error",
                            "reason": .string("The _stats function requires that map values be numbers or arrays of numbers, not '\(JSONWriter.string(value))'"),
                            "caused_by": firstDocumentID.map { .string($0) } ?? .null]
                }
                sum += number
                sumsqr += number * number
                min = Swift.min(min, number)
                max = Swift.max(max, number)
            }
            return ["sum": Self.number(sum), "count": .int(values.count), "min": Self.number(values.isEmpty ? 0 : min),
                    "max": Self.number(values.isEmpty ? 0 : max), "sumsqr": Self.number(sumsqr)]
        }
    }

    /// Numbers add; arrays add element by element (the shorter padded); objects add
    /// member by member.
    private static func add(_ a: JSONValue, _ b: JSONValue) -> JSONValue? {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if let i = x.int, let j = y.int {
                let (sum, overflow) = i.addingReportingOverflow(j)
                if !overflow { return .number(JSONNumber(sum)) }
            }
            return number(x.double + y.double)
        case (.array(let x), .array(let y)):
            var out: [JSONValue] = []
            for index in 0..<Swift.max(x.count, y.count) {
                let p = index < x.count ? x[index] : 0
                let q = index < y.count ? y[index] : 0
                guard let s = add(p, q) else { return nil }
                out.append(s)
            }
            return .array(out)
        case (.number(let x), .array) where x.int == 0 || x.double == 0: return b
        case (.number(let x), .object) where x.int == 0 || x.double == 0: return b
        case (.object(let x), .object(let y)):
            var out = x
            for member in y {
                guard let s = add(out[member.key] ?? 0, member.value) else { return nil }
                out[member.key] = s
            }
            return .object(out)
        default:
            return nil
        }
    }

    private static func sumError(_ id: String?) -> JSONValue {
        ["error": "builtin_reduce_error",
         "reason": "The _sum function requires that map values be numbers, arrays of numbers, or objects. Objects cannot be mixed with other data structures. Objects can be arbitrarily nested, provided that the values for all fields are themselves numbers, arrays of numbers, or objects.",
         "caused_by": id.map { .string($0) } ?? .null]
    }

    /// A double written as an integer when it is one, as Erlang's JSON encoder writes sums.
    static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 9.0e15 { return .number(JSONNumber(Int64(value))) }
        return .number(JSONNumber(value))
    }
}
