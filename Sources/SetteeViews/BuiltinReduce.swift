public import SetteeJSON

/// CouchDB's built-in reduce functions, in Swift (couch_query_servers.erl builtin_reduce).
public enum BuiltinReduce: String, Sendable {
    case count = "_count"
    case sum = "_sum"
    case stats = "_stats"
    case approxCountDistinct = "_approx_count_distinct"

    /// The built-in `source` names. CouchDB matches a name by its beginning
    /// (couch_mrview:validate/2, couch_query_servers:builtin_reduce/4 match
    /// `<<"_sum", _/binary>>`), so `"_sum  "` is `_sum` — and so is `"_sum_all"`.
    public static func named(_ source: String) -> BuiltinReduce? {
        [.sum, .count, .stats, .approxCountDistinct].first { source.hasPrefix($0.rawValue) }
    }

    /// Reduces the map values of one group (`keys` are the emitted keys). A value `_sum`
    /// cannot add makes CouchDB's `builtin_reduce_error` object, naming the value.
    /// - Throws: `BuiltinReduceError` for a `_stats` input that is not a number or an
    ///   array of numbers (CouchDB fails the query: 500 `invalid_value`).
    public func reduce(keys: [JSONValue], values: [JSONValue]) throws(BuiltinReduceError) -> JSONValue {
        switch self {
        case .count:
            return .int(values.count)
        case .approxCountDistinct:
            return .int(Set(keys.map { IndexKeyEncoding.encode($0) }).count)
        case .sum:
            var total: JSONValue = 0
            for value in values {
                guard let added = Self.add(total, value) else { return Self.sumError(value) }
                total = added
            }
            return total
        case .stats:
            guard let first = values.first else { return Self.stats([]) }
            if case .array(let elements) = first {
                // Arrays of numbers: stats element by element (CouchDB's lists:zipwith).
                var columns = Array(repeating: [Double](), count: elements.count)
                for value in values {
                    guard case .array(let row) = value, row.count == elements.count else {
                        throw .invalidValue(Self.statError(value, first: value == first))
                    }
                    for (column, element) in row.enumerated() {
                        guard let number = element.doubleValue else {
                            throw .invalidValue(Self.statError(element, first: value == first))
                        }
                        columns[column].append(number)
                    }
                }
                return .array(columns.map(Self.stats))
            }
            var numbers: [Double] = []
            numbers.reserveCapacity(values.count)
            for (position, value) in values.enumerated() {
                guard let number = value.doubleValue else { throw .invalidValue(Self.statError(value, first: position == 0)) }
                numbers.append(number)
            }
            return Self.stats(numbers)
        }
    }

    private static func stats(_ numbers: [Double]) -> JSONValue {
        var (sum, min, max, sumsqr) = (0.0, Double.infinity, -Double.infinity, 0.0)
        for number in numbers {
            sum += number
            sumsqr += number * number
            min = Swift.min(min, number)
            max = Swift.max(max, number)
        }
        return ["sum": number(sum), "count": .int(numbers.count), "min": number(numbers.isEmpty ? 0 : min),
                "max": number(numbers.isEmpty ? 0 : max), "sumsqr": number(sumsqr)]
    }

    /// CouchDB's two messages: the first value is checked as the accumulator starts
    /// (`~w`), the others as they are added (`~p`).
    private static func statError(_ value: JSONValue, first: Bool) -> String {
        first ? "non-numeric _stats input: " + ErlangTerm.write(value)
            : "The _stats function requires that map values be numbers or arrays of numbers, not '"
                + ErlangTerm.print(value) + "'"
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

    private static func sumError(_ value: JSONValue) -> JSONValue {
        ["error": "builtin_reduce_error",
         "reason": "The _sum function requires that map values be numbers, arrays of numbers, or objects. Objects cannot be mixed with other data structures. Objects can be arbitrarily nested, provided that the values for all fields are themselves numbers, arrays of numbers, or objects.",
         "caused_by": value]
    }

    /// A double written as an integer when it is one, as Erlang's JSON encoder writes sums.
    static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 9.0e15 { return .number(JSONNumber(Int64(value))) }
        return .number(JSONNumber(value))
    }
}

/// A `_stats` input CouchDB refuses: its `invalid_value` reason.
public enum BuiltinReduceError: Error, Sendable, Equatable {
    case invalidValue(String)
}

