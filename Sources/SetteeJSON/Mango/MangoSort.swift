/// A Mango sort, or an index's field list (mango_sort.erl): an array of field
/// names or `{"field": "asc"|"desc"}` objects, every one in the same direction.
public struct MangoSort: Sendable, Hashable {
    /// Field names as written (dotted paths).
    public let fields: [String]
    public let isDescending: Bool

    public static let none = MangoSort(fields: [], isDescending: false)

    public init(fields: [String], isDescending: Bool) {
        self.fields = fields
        self.isDescending = isDescending
    }

    /// Parses `value`, a sort or an index's `fields`.
    /// - Throws: `invalid_sort_json`, `invalid_sort_field`, `unsupported_mixed_sort`.
    public init(parsing value: JSONValue) throws(MangoError) {
        guard case .array(let specs) = value else { throw .invalidSortJSON(value) }
        var fields: [String] = []
        var directions: [Bool] = []
        for spec in specs {
            switch spec {
            case .string(let field) where !field.isEmpty:
                fields.append(field)
                directions.append(false)
            case .object(let object) where object.count == 1 && !object[0].key.isEmpty:
                guard case .string(let direction) = object[0].value, direction == "asc" || direction == "desc" else {
                    throw .invalidSortField(spec)
                }
                fields.append(object[0].key)
                directions.append(direction == "desc")
            default:
                throw .invalidSortField(spec)
            }
        }
        for field in fields {
            do { _ = try FieldPath(parsing: field) } catch { throw MangoError(error) }
        }
        guard Set(directions).count <= 1 else { throw .mixedSort }
        self.init(fields: fields, isDescending: directions.first ?? false)
    }

    /// `[{"field": "asc"}, ...]`, as `_index` and `_explain` show a definition.
    public var json: JSONValue {
        .array(fields.map { .object(JSONObject([($0, .string(isDescending ? "desc" : "asc"))])) })
    }
}
