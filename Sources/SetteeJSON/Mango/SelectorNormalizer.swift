/// The selector as CouchDB 3.4's `mango_selector:normalize/1` rewrites it, which `_explain`
/// shows as `selector` (clients and CouchDB's own Mango tests read it back):
///
/// 1. operators (`norm_ops`): a bare value is `{"$eq": value}`, an object of several members
///    an explicit `$and` of one member each;
/// 2. fields (`norm_fields`): nested field objects become dotted paths (`{"b": {"c": 2}}` is
///    `{"b.c": {"$eq": 2}}`), pushed down through `$and`/`$or`/`$nor`/`$not`; the arguments
///    of `$elemMatch`/`$allMatch`/`$keyMapMatch` restart at the empty path;
/// 3. negations (`norm_negations`): `$not` and `$nor` are pushed down to the conditions,
///    turning `$eq`↔`$ne`, `$lt`↔`$gte`, `$gt`↔`$lte`, `$in`↔`$nin`, `$exists` flipped,
///    `$and`↔`$or`; a condition with no opposite keeps a `$not`.
///
/// Only what `_explain` shows: matching uses `Selector`, which reads the same meaning.
/// The input has been accepted by `Selector` already, so its shapes are valid.
public enum SelectorNormalizer {
    public static func normalize(_ selector: JSONValue) -> JSONValue {
        if case .object(let object) = selector, object.isEmpty { return selector }
        return negations(fields(operators(selector), path: ""))
    }

    private static let combinators: Set<String> = ["$and", "$or", "$nor"]
    private static let subSelectors: Set<String> = ["$elemMatch", "$allMatch", "$keyMapMatch"]

    private static func operators(_ value: JSONValue) -> JSONValue {
        guard case .object(let object) = value, !object.isEmpty else { return one("$eq", value) }
        guard object.count == 1 else {
            return one("$and", .array(object.map { operators(one($0.key, $0.value)) }))
        }
        let (key, argument) = (object[0].key, object[0].value)
        if combinators.contains(key) { return one(key, each(argument, operators)) }
        if key == "$not" || subSelectors.contains(key) { return one(key, operators(argument)) }
        if key.hasPrefix("$") { return value }  // a terminal condition: $in, $regex, $size...
        return one(key, operators(argument))
    }

    private static func fields(_ value: JSONValue, path: String) -> JSONValue {
        guard case .object(let object) = value, object.count == 1 else { return value }
        let (key, argument) = (object[0].key, object[0].value)
        if combinators.contains(key) { return one(key, each(argument) { fields($0, path: path) }) }
        if key == "$not" { return one(key, fields(argument, path: path)) }
        if subSelectors.contains(key) { return one(path, one(key, fields(argument, path: ""))) }
        if key == "$default" { return value }
        if key.hasPrefix("$") { return one(path, value) }
        return fields(argument, path: path.isEmpty ? key : path + "." + key)
    }

    private static func negations(_ value: JSONValue) -> JSONValue {
        guard case .object(let object) = value, object.count == 1 else { return value }
        let (key, argument) = (object[0].key, object[0].value)
        switch key {
        case "$and", "$or": return one(key, each(argument, negations))
        case "$nor": return one("$and", each(argument, negate))
        case "$not": return negate(argument)
        case _ where subSelectors.contains(key): return one(key, negations(argument))
        case _ where key.hasPrefix("$"): return value
        default: return one(key, negations(argument))
        }
    }

    private static let opposites: [String: String] = [
        "$lt": "$gte", "$lte": "$gt", "$eq": "$ne", "$ne": "$eq", "$gte": "$lt", "$gt": "$lte",
        "$in": "$nin", "$nin": "$in",
    ]

    private static func negate(_ value: JSONValue) -> JSONValue {
        guard case .object(let object) = value, object.count == 1 else { return value }
        let (key, argument) = (object[0].key, object[0].value)
        switch key {
        case "$and": return one("$or", each(argument, negate))
        case "$or": return one("$and", each(argument, negate))
        case "$not": return negations(argument)
        case "$exists": return one(key, .bool(!(argument.boolValue ?? false)))
        case _ where opposites[key] != nil: return one(opposites[key] ?? key, argument)
        case _ where key.hasPrefix("$"): return one("$not", value)
        default: return one(key, negate(argument))
        }
    }

    private static func one(_ key: String, _ value: JSONValue) -> JSONValue { .object(JSONObject([(key, value)])) }

    private static func each(_ value: JSONValue, _ transform: (JSONValue) -> JSONValue) -> JSONValue {
        value.arrayValue.map { .array($0.map(transform)) } ?? value
    }
}
