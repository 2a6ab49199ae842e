/*
 Mango field names (docs.couchdb.org "Selector Syntax" > "Subfields"): a field name
 is a path of object keys joined by ".", e.g. "imdb.rating". A key that itself
 contains a dot escapes it with a backslash: "a\.b" is the one key "a.b".
 Like mango_util:parse_field/1, an escaped name drops its backslashes and may not
 have an empty segment. A segment that is a non-negative integer also indexes into
 an array (mango_doc:get_field/2): "genre.0" is the first genre.
*/

/// A parsed Mango field name: the keys to follow from the document root.
struct FieldPath: Sendable, Hashable {
    var keys: [String]

    static let root = FieldPath(keys: [])

    init(keys: [String]) { self.keys = keys }

    /// Parses `name`, honouring `\.` escapes.
    /// - Throws: `invalid_field_name` for an empty segment in an escaped name.
    init(parsing name: String) throws(SelectorError) {
        guard name.contains("\\") else {
            keys = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            return
        }
        var keys: [String] = []
        var current = ""
        var escaped = false
        for ch in name {
            if escaped {
                current.append(ch)
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == "." {
                keys.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        keys.append(current)
        guard !keys.contains(where: \.isEmpty) else { throw .invalidFieldName(name) }
        self.keys = keys
    }

    func appending(_ other: FieldPath) -> FieldPath { FieldPath(keys: keys + other.keys) }

    /// What following the path from `value` finds.
    enum Lookup {
        case found(JSONValue)
        /// An object on the way lacks the key: only `$exists: false` matches.
        case missing
        /// The path runs through a scalar or off an array's end: nothing matches.
        case badPath
    }

    func lookup(in value: JSONValue) -> Lookup {
        var current = value
        for key in keys {
            switch current {
            case .object(let object):
                guard let next = object[key] else { return .missing }
                current = next
            case .array(let elements):
                guard let index = Int(key), index >= 0, index < elements.count else { return .badPath }
                current = elements[index]
            default:
                return .badPath
            }
        }
        return .found(current)
    }
}
