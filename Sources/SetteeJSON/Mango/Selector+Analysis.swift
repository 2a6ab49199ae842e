/*
 What the query planner reads from a compiled selector (mango_selector.erl and
 mango_idx_view.erl): which fields every match must have, which are fixed by
 `$eq`, and the range of values a field can take. Only the top-level conjunction
 is looked through for ranges and constants, as CouchDB's planner does; `$or`
 contributes a required field only when every branch requires it.
*/

extension Selector {
    /// The conditions every match satisfies: the members of the top-level `$and`.
    var conjuncts: [Node] {
        func flatten(_ node: Node) -> [Node] {
            if case .all(let nodes) = node { return nodes.flatMap(flatten) }
            return [node]
        }
        return flatten(root)
    }

    /// Fields every matching document has (mango_selector:has_required_fields/2).
    func requiredFields() -> Set<FieldPath> { Self.required(root) }

    private static func required(_ node: Node) -> Set<FieldPath> {
        switch node {
        case .all(let nodes): return nodes.reduce(into: Set()) { $0.formUnion(required($1)) }
        case .any(let nodes):
            guard let first = nodes.first else { return [] }
            return nodes.dropFirst().reduce(required(first)) { $0.intersection(required($1)) }
        case .field(let path, let test):
            if case .exists(false) = test { return [] }
            return [path]
        }
    }

    /// Whether the top level fixes `path` with `$eq` (mango_selector:is_constant_field/2).
    func isConstant(_ path: FieldPath) -> Bool {
        conjuncts.contains { node in
            if case .field(path, .compare(.eq, _)) = node { return true }
            return false
        }
    }

    /// Fields an index range can use: those the top level tests with a comparison,
    /// `$beginsWith` or `$exists` (mango_idx_view:indexable_fields/1).
    func indexableFields() -> [FieldPath] {
        var fields: [FieldPath] = []
        for case .field(let path, let test) in conjuncts where Self.isIndexable(test) && !fields.contains(path) {
            fields.append(path)
        }
        return fields
    }

    private static func isIndexable(_ test: Test) -> Bool {
        switch test {
        case .compare(let op, _): op != .ne
        case .beginsWith, .exists: true
        default: false
        }
    }

    /// The values the top level allows `path` to take, as encoded index key bytes.
    func range(of path: FieldPath) -> FieldRange {
        var range = FieldRange()
        for case .field(path, let test) in conjuncts {
            switch test {
            case .compare(let op, let operand):
                let encoded = IndexKeyEncoding.encode(operand)
                let after = IndexKeyEncoding.upperBound(encoded)
                switch op {
                case .eq:
                    range.raiseLower(encoded, value: operand)
                    range.lowerUpper(after, value: operand)
                    range.points.append(encoded)
                case .gt: range.raiseLower(after, value: operand)
                case .gte: range.raiseLower(encoded, value: operand)
                case .lt: range.lowerUpper(encoded, value: operand)
                case .lte: range.lowerUpper(after, value: operand)
                case .ne: break
                }
            case .beginsWith(let prefix):
                // From the prefix to the prefix and U+FFFF, which ICU's root collation puts
                // after every other code point (mango_idx_view:range/5); the selector then
                // checks each document's bytes.
                let last = prefix + "\u{FFFF}"
                range.raiseLower(IndexKeyEncoding.encode(.string(prefix)), value: .string(prefix))
                range.lowerUpper(IndexKeyEncoding.upperBound(IndexKeyEncoding.encode(.string(last))), value: .string(last))
            default: break
            }
        }
        return range
    }
}

/// The encoded values a field may take: `[lower, upper)`, each nil when open.
struct FieldRange {
    var lower: [UInt8]?
    var upper: [UInt8]?
    /// The JSON values behind the bounds, for `_explain`.
    var lowerValue: JSONValue?
    var upperValue: JSONValue?
    /// Encodings of the `$eq` operands seen.
    var points: [[UInt8]] = []

    mutating func raiseLower(_ bound: [UInt8], value: JSONValue) {
        if lower.map({ $0.lexicographicallyPrecedes(bound) }) ?? true {
            lower = bound
            lowerValue = value
        }
    }

    mutating func lowerUpper(_ bound: [UInt8], value: JSONValue) {
        if upper.map({ bound.lexicographicallyPrecedes($0) }) ?? true {
            upper = bound
            upperValue = value
        }
    }

    /// Nothing can match: the bounds cross.
    var isEmpty: Bool {
        guard let lower, let upper else { return false }
        return !lower.lexicographicallyPrecedes(upper)
    }

    /// The one encoded value the field must have, when `$eq` fixes it.
    var point: [UInt8]? {
        guard let lower, let upper, points.contains(lower), upper == IndexKeyEncoding.upperBound(lower) else {
            return nil
        }
        return lower
    }
}
