/*
 The selector compiler: one recursive pass over the JSON selector, carrying the field
 path reached so far and whether an odd number of `$not`/`$nor` encloses the current
 condition (see the block comment in Selector.swift). Operand checks and error texts
 follow mango_selector:norm_ops/1 and mango_error.erl.
*/

extension Selector {
    struct Compiler {
        /// Whether a test may apply to the value itself (an empty field path): true
        /// only inside `$elemMatch`/`$allMatch`/`$keyMapMatch`, whose elements need
        /// not be objects. At the top, CouchDB answers "missing a field name".
        var allowsRootTests: Bool

        /// Compiles the condition `value` found under `path`.
        func compile(_ value: JSONValue, at path: FieldPath = .root, negated: Bool = false)
            throws(SelectorError) -> Node
        {
            // A bare value, or an empty object, is an implicit `$eq`.
            guard case .object(let object) = value, let first = object.first else {
                return try terminal(.compare(.eq, value), at: path, negated: negated)
            }
            guard object.count == 1 else {
                // An implicit `$and` of each member; under negation, De Morgan.
                var nodes: [Node] = []
                for member in object {
                    nodes.append(try compile(.object([member.key: member.value]), at: path, negated: negated))
                }
                return negated ? .any(nodes) : .all(nodes)
            }
            guard first.key.hasPrefix("$") else {
                let subpath = try FieldPath(parsing: first.key)
                return try compile(first.value, at: path.appending(subpath), negated: negated)
            }
            return try compileOperator(first.key, first.value, at: path, negated: negated)
        }

        private func compileOperator(_ op: String, _ operand: JSONValue, at path: FieldPath, negated: Bool)
            throws(SelectorError) -> Node
        {
            switch op {
            case "$and", "$or", "$nor":
                guard case .array(let elements) = operand else { throw .badArgument(op, operand) }
                // $nor is the $and of negations; negation swaps $and and $or.
                let negateElements = op == "$nor" ? !negated : negated
                var nodes: [Node] = []
                for element in elements {
                    nodes.append(try compile(element, at: path, negated: negateElements))
                }
                let isConjunction = (op == "$or") == negated
                return isConjunction ? .all(nodes) : .any(nodes)
            case "$not":
                guard case .object = operand else { throw .badArgument(op, operand) }
                return try compile(operand, at: path, negated: !negated)
            default:
                return try terminal(try test(op, operand), at: path, negated: negated)
            }
        }

        private func terminal(_ test: Test, at path: FieldPath, negated: Bool) throws(SelectorError) -> Node {
            guard allowsRootTests || !path.keys.isEmpty else { throw .missingFieldName }
            return .field(path, negated ? Self.negate(test) : test)
        }

        /// The opposite test, as mango_selector:negate/1 forms it.
        static func negate(_ test: Test) -> Test {
            switch test {
            case .compare(let op, let operand): .compare(op.opposite, operand)
            case .isIn(let operands): .notIn(operands)
            case .notIn(let operands): .isIn(operands)
            case .exists(let shouldExist): .exists(!shouldExist)
            case .not(let inner): inner
            default: .not(test)
            }
        }

        /// Validates the operand of terminal operator `op`.
        private func test(_ op: String, _ operand: JSONValue) throws(SelectorError) -> Test {
            switch op {
            case "$eq": return .compare(.eq, operand)
            case "$ne": return .compare(.ne, operand)
            case "$lt": return .compare(.lt, operand)
            case "$lte": return .compare(.lte, operand)
            case "$gt": return .compare(.gt, operand)
            case "$gte": return .compare(.gte, operand)
            case "$in", "$nin", "$all":
                guard case .array(let operands) = operand else { throw .badArgument(op, operand) }
                return op == "$in" ? .isIn(ValueSet(operands)) : op == "$nin" ? .notIn(ValueSet(operands)) : .containsAll(operands)
            case "$exists":
                guard case .bool(let shouldExist) = operand else { throw .badArgument(op, operand) }
                return .exists(shouldExist)
            case "$type":
                // CouchDB accepts any string; only the six JSON type names ever match.
                guard case .string(let name) = operand else { throw .badArgument(op, operand) }
                return .type(name)
            case "$size":
                guard let size = operand.intValue, size >= 0 else { throw .badArgument(op, operand) }
                return .size(size)
            case "$mod": return try modTest(operand)
            case "$regex":
                guard case .string(let pattern) = operand, let regex = MangoRegex(pattern) else {
                    throw .badArgument(op, operand)
                }
                return .regex(regex)
            case "$beginsWith":
                guard case .string(let prefix) = operand else { throw .badArgument(op, operand) }
                return .beginsWith(prefix)
            case "$elemMatch", "$allMatch", "$keyMapMatch":
                return try elementTest(op, operand)
            case "$where", "$geoWithin", "$geoIntersects", "$near", "$nearSphere", "$text":
                throw .notSupported(op)
            default:
                throw .invalidOperator(op)
            }
        }

        /// `$mod: [divisor, remainder]`, two integers and a non-zero divisor.
        private func modTest(_ operand: JSONValue) throws(SelectorError) -> Test {
            guard case .array(let pair) = operand, pair.count == 2,
                  let divisor = pair[0].numberValue?.int, let remainder = pair[1].numberValue?.int,
                  divisor != 0
            else { throw .badArgument("$mod", operand) }
            return .mod(divisor: divisor, remainder: remainder)
        }

        /// `$elemMatch`, `$allMatch`, `$keyMapMatch`: a selector for each element (or key).
        private func elementTest(_ op: String, _ operand: JSONValue) throws(SelectorError) -> Test {
            guard case .object(let object) = operand else { throw .badArgument(op, operand) }
            let node = object.isEmpty
                ? Node.field(.root, .compare(.eq, operand))
                : try Compiler(allowsRootTests: true).compile(operand)
            switch op {
            case "$elemMatch": return .elemMatch(node)
            case "$allMatch": return .allMatch(node)
            default: return .keyMapMatch(node)
            }
        }
    }
}
