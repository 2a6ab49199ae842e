/*
 CouchDB's view collation, as views and Mango's comparison operators use it
 (docs.couchdb.org "Views Collation"; mango_json:cmp/2 -> couch_ejson_compare).

 Order across types: null < false < true < numbers < strings < arrays < objects.
 - Numbers compare by value: exactly as 64-bit integers when both are written as
   integers that fit, otherwise as doubles (so 1 == 1.0, as in CouchDB).
 - Strings compare with ICU's root collation (`UnicodeCollator`), as
   couch_ejson_compare.c does: "a" < "A" < "aa" < "b" < "B".
 - Arrays compare element by element, then the shorter first.
 - Objects compare member by member in written order (key, then value), then the
   one with fewer members first.

 Raw collation (a view's `"options": {"collation": "raw"}`, and Mango's `_id`,
 mango_json:cmp_raw/2) is Erlang's term order over CouchDB's JSON terms: numbers <
 false < null < true (atoms by name) < objects < arrays < strings, strings by bytes.
*/

/// CouchDB's view collation order over JSON values.
public enum JSONCollation {
    /// Compares `a` and `b` in `collation`: negative when `a` sorts first, 0 when
    /// equal, positive when `a` sorts after `b`.
    public static func compare(_ a: JSONValue, _ b: JSONValue, collation: KeyCollation = .unicode) -> Int {
        let (ra, rb) = (rank(a, collation), rank(b, collation))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)): return compareNumbers(x, y)
        case (.string(let x), .string(let y)): return compareStrings(x, y, collation)
        case (.array(let x), .array(let y)): return compareArrays(x, y, collation)
        case (.object(let x), .object(let y)): return compareObjects(x, y, collation)
        default: return 0  // null/null, or equal booleans (rank separates false/true)
        }
    }

    /// Whether `a` and `b` collate equal (what `$eq`, `$in` and `$all` test).
    public static func isEqual(_ a: JSONValue, _ b: JSONValue, collation: KeyCollation = .unicode) -> Bool {
        compare(a, b, collation: collation) == 0
    }

    private static func rank(_ value: JSONValue, _ collation: KeyCollation) -> Int {
        switch (value, collation) {
        case (.null, .unicode): 0
        case (.bool(let b), .unicode): b ? 2 : 1
        case (.number, .unicode): 3
        case (.string, .unicode): 4
        case (.array, .unicode): 5
        case (.object, .unicode): 6
        case (.number, .raw): 0
        case (.bool(let b), .raw): b ? 3 : 1
        case (.null, .raw): 2
        case (.object, .raw): 4
        case (.array, .raw): 5
        case (.string, .raw): 6
        }
    }

    static func compareNumbers(_ x: JSONNumber, _ y: JSONNumber) -> Int {
        if let i = x.int, let j = y.int { return i < j ? -1 : (i == j ? 0 : 1) }
        let (d, e) = (x.double, y.double)
        return d < e ? -1 : (d == e ? 0 : 1)
    }

    static func compareStrings(_ x: String, _ y: String, _ collation: KeyCollation) -> Int {
        guard collation == .raw else { return UnicodeCollator.compare(x, y) }
        // Bytes of UTF-8, whose order is code point order (Erlang compares binaries so).
        var i = x.utf8.makeIterator()
        var j = y.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
            }
        }
    }

    private static func compareArrays(_ x: [JSONValue], _ y: [JSONValue], _ collation: KeyCollation) -> Int {
        for (p, q) in zip(x, y) {
            let c = compare(p, q, collation: collation)
            if c != 0 { return c }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    private static func compareObjects(_ x: JSONObject, _ y: JSONObject, _ collation: KeyCollation) -> Int {
        for (p, q) in zip(x, y) {
            let k = compareStrings(p.key, q.key, collation)
            if k != 0 { return k }
            let v = compare(p.value, q.value, collation: collation)
            if v != 0 { return v }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }
}
