/// `fields` of a `_find`: a document reduced to the listed fields (mango_fields:extract/2).
/// A field the document lacks is left out; nested fields keep their nesting.
public enum FieldProjection {
    public static func project(_ document: JSONValue, fields: [String]) -> JSONValue {
        var result = JSONObject()
        for field in fields {
            guard let path = try? FieldPath(parsing: field), case .found(let value) = path.lookup(in: document) else {
                continue
            }
            set(value, at: path.keys[...], in: &result)
        }
        return .object(result)
    }

    private static func set(_ value: JSONValue, at keys: ArraySlice<String>, in object: inout JSONObject) {
        guard let key = keys.first else { return }
        guard keys.count > 1 else {
            object[key] = value
            return
        }
        var child = object[key]?.objectValue ?? JSONObject()
        set(value, at: keys.dropFirst(), in: &child)
        object[key] = .object(child)
    }
}
