/*
 CouchDB's view collation, as Mango's comparison operators use it
 (docs.couchdb.org "Views Collation"; mango_json:cmp/2 -> couch_ejson_compare).

 Order across types: null < false < true < numbers < strings < arrays < objects.
 - Numbers compare by value: exactly as 64-bit integers when both are written as
   integers that fit, otherwise as doubles (so 1 == 1.0, as in CouchDB).
 - Strings compare by Unicode code point (scalar by scalar). CouchDB uses ICU's UCA
   collation here, where "a" < "B"; Settee's order is the one `_id` raw collation
   (mango_json:cmp_raw) uses and is documented as a known difference.
 - Arrays compare element by element, then the shorter first.
 - Objects compare member by member in written order (key, then value), then the
   one with fewer members first.
*/

/// CouchDB's view collation order over JSON values.
public enum JSONCollation {
    /// Compares `a` and `b`: negative when `a` sorts first, 0 when equal, positive
    /// when `a` sorts after `b`.
    public static func compare(_ a: JSONValue, _ b: JSONValue) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)): return compareNumbers(x, y)
        case (.string(let x), .string(let y)): return compareStrings(x, y)
        case (.array(let x), .array(let y)): return compareArrays(x, y)
        case (.object(let x), .object(let y)): return compareObjects(x, y)
        default: return 0  // null/null, or equal booleans (rank separates false/true)
        }
    }

    /// Whether `a` and `b` collate equal (what `$eq`, `$in` and `$all` test).
    public static func isEqual(_ a: JSONValue, _ b: JSONValue) -> Bool { compare(a, b) == 0 }

    private static func rank(_ value: JSONValue) -> Int {
        switch value {
        case .null: 0
        case .bool(let b): b ? 2 : 1
        case .number: 3
        case .string: 4
        case .array: 5
        case .object: 6
        }
    }

    static func compareNumbers(_ x: JSONNumber, _ y: JSONNumber) -> Int {
        if let i = x.int, let j = y.int { return i < j ? -1 : (i == j ? 0 : 1) }
        let (d, e) = (x.double, y.double)
        return d < e ? -1 : (d == e ? 0 : 1)
    }

    static func compareStrings(_ x: String, _ y: String) -> Int {
        // String's own `<` uses canonical equivalence; code points are what we promise.
        var i = x.unicodeScalars.makeIterator()
        var j = y.unicodeScalars.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p.value < q.value ? -1 : 1 }
            }
        }
    }

    private static func compareArrays(_ x: [JSONValue], _ y: [JSONValue]) -> Int {
        for (p, q) in zip(x, y) {
            let c = compare(p, q)
            if c != 0 { return c }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    private static func compareObjects(_ x: JSONObject, _ y: JSONObject) -> Int {
        for (p, q) in zip(x, y) {
            let k = compareStrings(p.key, q.key)
            if k != 0 { return k }
            let v = compare(p.value, q.value)
            if v != 0 { return v }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }
}
