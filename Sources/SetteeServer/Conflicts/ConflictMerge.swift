import SetteeJSON

/*
 The built-in policies' merge, a pure function of the leaves' bodies in canonical
 order: the winner first, then the other live leaves in CouchDB's `_conflicts` order
 (generation, then revision id, descending). Every peer that holds the same leaves
 reads them in the same order, so every peer computes the same merged body, member
 for member and byte for byte (`JSONWriter` writes it).

 `_merge` of values v0 (the winner's) ... vn, for one place in the document, taken
 only from the leaves that have something there:
 - all objects: an object with every member of any of them, in order of first
   appearance (v0's members in v0's order, then v1's new ones, ...), each member the
   `_merge` of the values the leaves have for it. A member removed on one side comes
   back from the other: union, never intersection.
 - all arrays, with `key` set, and every element of every one an object whose `key`
   member is a string or a number: one element per key value (equal as JSON text),
   the `_merge` of that key's elements, in order of first appearance; with `order`,
   then stably sorted by the elements' `order` member (missing first), compared in
   raw collation (`JSONCollation`: numbers < false < null < true < objects < arrays
   < strings, strings by UTF-8 bytes, so ISO-8601 times sort as times).
 - anything else (scalars, arrays not merged by key, values of different types): v0.
 `_max`: the body of the leaf whose `field` member is greatest in raw collation; a
 leaf without it is below every leaf with it; ties go to the earlier leaf.
*/
enum ConflictMerge {
    /// `_merge` of `values` (non-empty, canonical order).
    static func merge(_ values: [JSONValue], key: String?, order: String?) -> JSONValue {
        precondition(!values.isEmpty, "merge of no values")
        if values.count == 1 { return values[0] }
        let objects = values.compactMap(\.objectValue)
        if objects.count == values.count { return .object(mergeObjects(objects, key: key, order: order)) }
        let arrays = values.compactMap(\.arrayValue)
        if arrays.count == values.count, let key, let merged = mergeKeyed(arrays, key: key, order: order) {
            return .array(merged)
        }
        return values[0]
    }

    private static func mergeObjects(_ objects: [JSONObject], key: String?, order: String?) -> JSONObject {
        var names: [String] = []
        var seen = Set<String>()
        for object in objects {
            for name in object.keys where seen.insert(name).inserted { names.append(name) }
        }
        var merged = JSONObject()
        for name in names {
            merged.append(name, merge(objects.compactMap { $0[name] }, key: key, order: order))
        }
        return merged
    }

    /// The arrays merged by `key`; nil when some element is not an object with a
    /// string or number `key` member (the arrays are then values, not sets).
    private static func mergeKeyed(_ arrays: [[JSONValue]], key: String, order: String?) -> [JSONValue]? {
        var keys: [JSONValue] = []
        var groups: [JSONValue: [JSONValue]] = [:]
        for element in arrays.joined() {
            guard let identity = element[key], identity.stringValue != nil || identity.numberValue != nil else {
                return nil
            }
            if groups[identity] == nil { keys.append(identity) }
            groups[identity, default: []].append(element)
        }
        var merged = keys.map { merge(groups[$0] ?? [], key: key, order: order) }
        if let order {
            // Swift's sort is not stable: the place of first appearance breaks ties.
            merged = merged.enumerated().sorted { a, b in
                let c = compareOptional(a.element[order], b.element[order])
                return c != 0 ? c < 0 : a.offset < b.offset
            }.map(\.element)
        }
        return merged
    }

    /// The index into `bodies` (canonical order) of the leaf `_max` keeps.
    static func maxLeaf(_ bodies: [JSONValue], field: String) -> Int {
        var best = 0
        for index in bodies.indices.dropFirst() where compareOptional(bodies[index][field], bodies[best][field]) > 0 {
            best = index
        }
        return best
    }

    /// Raw collation, a missing value below every present one.
    private static func compareOptional(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let a?, let b?): return JSONCollation.compare(a, b, collation: .raw)
        }
    }
}
