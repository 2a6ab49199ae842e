/*
 `_explain`'s `selector_hints`, as CouchDB 3.4.3 writes them (mango_cursor:extract_selector_hints/1):
 one entry for json indexes, whose `indexable_fields` are mango_idx_view:indexable_fields/1 of the
 normalized selector and whose `unindexable_fields` are the selector's other fields
 (mango_selector:fields/1 less those).

 Both lists come out of Erlang `sets` (version 1, the default of OTP 25, which CouchDB 3.4.3 runs
 on), so their order is the set's: 16 hash buckets chosen by `erlang:phash(Field, 16)`, read
 lowest bucket first. Within a bucket `sets:from_list` keeps the order of insertion, and
 `sets:subtract` (a `sets:filter`) reverses each bucket. `ErlangSetOrder` reproduces that, so
 clients comparing the lists as CouchDB sends them see the same order.
*/

/// `selector_hints` of one index type (CouchDB's `json`; Settee has no text indexes).
public struct SelectorHints: Sendable, Equatable {
    public let indexableFields: [String]
    public let unindexableFields: [String]

    /// Hints for the selector as `SelectorNormalizer.normalize` returns it (CouchDB computes
    /// them on the normalized selector too).
    public init(normalized selector: JSONValue) {
        let indexable = Self.indexableFields(selector)
        let all = ErlangSetOrder(Self.fields(selector))
        indexableFields = ErlangSetOrder(indexable).list
        unindexableFields = all.subtracting(Set(indexable)).list
    }

    /// mango_selector:fields/1: a combinator's arguments' fields, else the member's name (so
    /// `$not` over an object, which holds no list, counts as a field named `$not`, as in CouchDB).
    static func fields(_ selector: JSONValue) -> [String] {
        guard case .object(let object) = selector, object.count == 1 else { return [] }
        let (key, argument) = (object[0].key, object[0].value)
        if key.hasPrefix("$"), case .array(let arguments) = argument { return arguments.flatMap(fields) }
        return [key]
    }

    /// mango_idx_view:indexable_fields/1: through `$and` only, a field whose condition is a
    /// range operator (`$lt`, `$lte`, `$eq`, `$gt`, `$gte`, `$beginsWith`, `$exists`), sorted
    /// by bytes and deduplicated (`lists:usort`).
    static func indexableFields(_ selector: JSONValue) -> [String] {
        guard case .object(let object) = selector, object.count == 1 else { return [] }
        let (key, argument) = (object[0].key, object[0].value)
        if key == "$and", case .array(let arguments) = argument {
            let fields = Set(arguments.flatMap(indexableFields))
            return fields.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        }
        guard !key.hasPrefix("$"), case .object(let condition) = argument, condition.count == 1,
              rangeOperators.contains(condition[0].key) else { return [] }
        return [key]
    }

    private static let rangeOperators: Set<String> = ["$lt", "$lte", "$eq", "$gt", "$gte", "$beginsWith", "$exists"]
}

/// The order in which OTP 25's `sets:to_list/1` returns a version-1 set of binaries built by
/// `sets:from_list/1`, for sets of up to 80 elements (the set grows past 16 buckets after that,
/// far more fields than a selector names).
struct ErlangSetOrder {
    /// Bucket 1...16, each in the order `to_list` reads it.
    private var buckets: [[String]]

    init(_ elements: [String]) {
        buckets = Array(repeating: [], count: 16)
        for element in elements {
            let slot = Self.slot(element)
            if !buckets[slot].contains(element) { buckets[slot].append(element) }
        }
    }

    var list: [String] { buckets.flatMap { $0 } }

    /// `sets:subtract/2`: its `filter` rebuilds each bucket in reverse.
    func subtracting(_ removed: Set<String>) -> ErlangSetOrder {
        var result = self
        result.buckets = buckets.map { $0.filter { !removed.contains($0) }.reversed() }
        return result
    }

    /// `erlang:phash(Binary, 16) - 1`: erts' `make_hash` of a binary (each byte folded in with
    /// FUNNY_NUMBER1, then the size with FUNNY_NUMBER4, in 32 bits), modulo the range.
    static func slot(_ element: String) -> Int {
        var hash: UInt32 = 0
        for byte in element.utf8 { hash = hash &* 268_440_163 &+ UInt32(byte) }
        hash = hash &* 268_436_141 &+ UInt32(truncatingIfNeeded: element.utf8.count)
        return Int(hash % 16)
    }
}
