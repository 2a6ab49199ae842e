/*
 A compiled Mango selector (docs.couchdb.org "Selector Syntax"; behaviour follows
 CouchDB's mango_selector.erl).

 Compilation does what mango_selector:normalize/1 does, in one pass:
 - implicit operators become explicit: a bare value is `$eq`, an object with several
   members is an `$and` of them, and an object under a field is a nested selector
   (`{"a": {"b": 1}}` is `{"a.b": {"$eq": 1}}`);
 - field names are pushed down through `$and`/`$or`/`$not`/`$nor` so that every
   condition ends as "field path + one terminal test" (`Node.field`);
 - negations are pushed down to the terminals with De Morgan's laws, and a negated
   terminal is replaced by its opposite where one exists (`$lt` -> `$gte`,
   `$in` -> `$nin`, `$exists: true` -> `$exists: false`), else wrapped in `.not`.

 That shape fixes how missing fields behave, as in CouchDB: a field that is absent
 matches only `$exists: false`; every other test, negated or not, is false. So
 `{"$not": {"a": 1}}` does not match a document without `a`. A path that runs through
 a scalar (or off the end of an array) matches nothing at all.
 `$elemMatch`, `$allMatch` and `$keyMapMatch` hold a selector compiled afresh for
 each element, where a condition without a field name tests the element itself.
*/

/// A Mango selector, compiled once and matched against many documents, as
/// `_find` and `_changes?filter=_selector` use it.
///
///     let selector = try Selector(["year": ["$gt": 2010], "genre": ["$in": ["drama"]]])
///     selector.matches(doc)
public struct Selector: Sendable {
    /// The compiled condition tree.
    let root: Node

    /// Compiles `selector`, a JSON object in Mango syntax.
    /// - Throws: ``SelectorError`` with CouchDB's error and reason for a selector
    ///   that is not an object, uses an unknown or unsupported operator, or gives an
    ///   operator an operand it cannot use.
    public init(_ selector: JSONValue) throws(SelectorError) {
        guard case .object(let object) = selector else { throw .notAnObject(selector) }
        // An empty selector matches every document (mango_selector:match/2).
        root = object.isEmpty ? .all([]) : try Compiler(allowsRootTests: false).compile(selector)
    }

    /// Whether `document` satisfies the selector.
    public func matches(_ document: JSONValue) -> Bool { root.matches(document) }
}

extension Selector {
    /// A condition: boolean combinations ending in tests of one field each.
    indirect enum Node: Sendable {
        case all([Node])
        case any([Node])
        /// `test` applied to what `path` finds; an empty path is the value itself.
        case field(FieldPath, Test)
    }

    /// A terminal operator with its validated operand.
    indirect enum Test: Sendable {
        case compare(Comparison, JSONValue)
        case isIn(ValueSet)
        case notIn(ValueSet)
        case exists(Bool)
        case type(String)
        case mod(divisor: Int64, remainder: Int64)
        case size(Int)
        case regex(MangoRegex)
        case beginsWith(String)
        case containsAll([JSONValue])
        case elemMatch(Node)
        case allMatch(Node)
        case keyMapMatch(Node)
        case not(Test)
    }

    enum Comparison: Sendable {
        case eq, ne, lt, lte, gt, gte
    }
}

extension Selector.Node {
    func matches(_ value: JSONValue) -> Bool {
        switch self {
        case .all(let nodes): return nodes.allSatisfy { $0.matches(value) }
        case .any(let nodes): return nodes.contains { $0.matches(value) }
        case .field(let path, let test):
            switch path.lookup(in: value) {
            // `_id` compares raw, by bytes (mango_selector:match/3 with mango_json:cmp_raw/2).
            case .found(let found): return test.matches(found, collation: path.keys == ["_id"] ? .raw : .unicode)
            case .missing:
                if case .exists(false) = test { return true }
                return false
            case .badPath: return false
            }
        }
    }
}

extension Selector.Test {
    func matches(_ value: JSONValue, collation: KeyCollation = .unicode) -> Bool {
        switch self {
        case .compare(let op, let operand): return op.holds(JSONCollation.compare(value, operand, collation: collation))
        case .isIn(let operands): return Self.isIn(value, operands)
        case .notIn(let operands): return !Self.isIn(value, operands)
        case .exists(let shouldExist): return shouldExist
        case .type(let name): return value.typeName == name
        case .mod(let divisor, let remainder):
            // Only integers match, and the sign follows the dividend (Erlang `rem`).
            guard let n = value.numberValue?.int else { return false }
            return n.remainderReportingOverflow(dividingBy: divisor).partialValue == remainder
        case .size(let size): return value.arrayValue?.count == size
        case .regex(let regex): return value.stringValue.map(regex.matches) ?? false
        case .beginsWith(let prefix):
            return value.stringValue?.unicodeScalars.starts(with: prefix.unicodeScalars) ?? false
        case .containsAll(let operands): return Self.containsAll(value, operands)
        case .elemMatch(let node): return value.arrayValue?.contains { node.matches($0) } ?? false
        case .allMatch(let node):
            guard let elements = value.arrayValue, !elements.isEmpty else { return false }
            return elements.allSatisfy { node.matches($0) }
        case .keyMapMatch(let node):
            return value.objectValue?.contains { node.matches(.string($0.key)) } ?? false
        case .not(let test): return !test.matches(value, collation: collation)
        }
    }

    /// `$in`: an array field matches when any element equals any operand.
    private static func isIn(_ value: JSONValue, _ operands: ValueSet) -> Bool {
        (value.arrayValue ?? [value]).contains(where: operands.contains)
    }

    /// `$all`: every operand is an element of the array, or the single operand is
    /// the array itself (mango_selector:match/3).
    private static func containsAll(_ value: JSONValue, _ operands: [JSONValue]) -> Bool {
        guard let elements = value.arrayValue else { return false }
        let hasAll = operands.allSatisfy { operand in elements.contains { JSONCollation.isEqual($0, operand) } }
        if hasAll { return true }
        if operands.count == 1, case .array = operands[0] { return JSONCollation.isEqual(operands[0], value) }
        return false
    }
}

extension Selector.Comparison {
    func holds(_ order: Int) -> Bool {
        switch self {
        case .eq: order == 0
        case .ne: order != 0
        case .lt: order < 0
        case .lte: order <= 0
        case .gt: order > 0
        case .gte: order >= 0
        }
    }

    /// The comparison that holds exactly when this one does not.
    var opposite: Self {
        switch self {
        case .eq: .ne
        case .ne: .eq
        case .lt: .gte
        case .lte: .gt
        case .gt: .lte
        case .gte: .lt
        }
    }
}
