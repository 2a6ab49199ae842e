/// The body of `POST /{db}/_find` and `_explain`, validated as mango_opts:validate_find/1
/// does: known keys in its order, then anything else is `invalid_key`.
public struct FindRequest: Sendable {
    public let selectorJSON: JSONValue
    public let selector: Selector
    /// `[]`, `[ddoc]` or `[ddoc, name]`.
    public var useIndex: [String] = []
    /// Where a previous page ended; nil for the first page.
    public var bookmark: String?
    public var limit = 25
    public var skip = 0
    public var sort = MangoSort.none
    /// The fields to return; nil: the whole document.
    public var fields: [String]?
    public var r = 1
    public var conflicts = false
    public var update = true
    public var stable = false
    public var stale = false
    public var executionStats = false
    public var allowFallback = true

    static let knownKeys: Set<String> = [
        "selector", "use_index", "bookmark", "limit", "skip", "sort", "fields", "partition", "r", "conflicts",
        "stale", "update", "stable", "execution_stats", "allow_fallback",
    ]

    public init(parsing body: JSONValue) throws(MangoError) {
        guard case .object(let object) = body else {
            throw MangoError(400, "bad_request", "Request body must be a JSON object")
        }
        guard let selectorJSON = object["selector"] else { throw .missingKey("selector") }
        self.selectorJSON = selectorJSON
        do { selector = try Selector(selectorJSON) } catch { throw MangoError(error) }
        // null is no index named, as CouchDB reads it (its own test helper sends it always).
        if let value = object["use_index"], value != .null { useIndex = try Self.indexName(value) }
        if let value = object["bookmark"] {
            switch value {
            case .null: bookmark = nil
            case .string(let text): bookmark = text.isEmpty || text == "nil" ? nil : text
            default: throw .invalidBookmark(JSONWriter.string(value))
            }
        }
        if let value = object["limit"] { limit = try Self.nonNegative(value) }
        if let value = object["skip"] { skip = try Self.nonNegative(value) }
        if let value = object["sort"] { sort = try MangoSort(parsing: value) }
        if let value = object["fields"] {
            let list = try Self.fieldList(value)
            fields = list.isEmpty ? nil : list  // [] is the default: every field
        }
        if let value = object["partition"] {
            // couch_partition:validate_partition/1's checks come first (Apache CouchDB 3.4.3).
            guard case .string(let partition) = value else {
                throw MangoError(400, "illegal_partition", "Partition must be a string")
            }
            if partition.contains(":") { throw MangoError(400, "illegal_partition", "Partition must not contain a colon") }
            if partition.hasPrefix("_") {
                throw MangoError(400, "illegal_partition", "Partition must not start with an underscore")
            }
            // Settee has no partitioned databases, so every database answers as a global one.
            guard partition.isEmpty else {
                throw MangoError(400, "bad_request", "partition specified on non-partitioned db")
            }
        }
        if let value = object["r"] {
            guard let r = value.intValue, r > 0, value.numberValue?.int != nil else {
                throw MangoError(400, "invalid_pos_integer", "\(ErlangTerm.write(value)) is not an integer greater than zero")
            }
            self.r = r
        }
        if let value = object["conflicts"] { conflicts = try Self.boolean(value) }
        if let value = object["stale"] {
            switch value {
            case .string("ok"): stale = true
            case .bool(false): stale = false
            default: throw MangoError(400, "invalid_ok_or_false_value", "Invalid value for stale: \(ErlangTerm.write(value))")
            }
        }
        if let value = object["update"] { update = try Self.boolean(value) }
        if let value = object["stable"] { stable = try Self.boolean(value) }
        if let value = object["execution_stats"] { executionStats = try Self.boolean(value) }
        if let value = object["allow_fallback"] { allowFallback = try Self.boolean(value) }
        if let unknown = object.first(where: { !Self.knownKeys.contains($0.key) }) { throw .invalidKey(unknown.key) }
    }

    /// The options as `_explain` echoes them under `opts`.
    public var optionsJSON: JSONValue {
        [
            "use_index": .array(useIndex.map { .string($0) }), "bookmark": .string(bookmark ?? "nil"),
            "limit": .int(limit), "skip": .int(skip),
            "sort": .object(JSONObject(sort.fields.map { ($0, .string(sort.isDescending ? "desc" : "asc")) })),
            "fields": .array((fields ?? []).map { .string($0) }), "partition": "", "r": .int(r),
            "conflicts": .bool(conflicts), "stale": .bool(stale), "update": .bool(update), "stable": .bool(stable),
            "execution_stats": .bool(executionStats), "allow_fallback": .bool(allowFallback),
        ]
    }

    private static func nonNegative(_ value: JSONValue) throws(MangoError) -> Int {
        guard value.numberValue?.int != nil, let n = value.intValue, n >= 0 else {
            throw MangoError(400, "invalid_non_neg_integer",
                             "\(ErlangTerm.write(value)) is not an integer greater than or equal to zero")
        }
        return n
    }

    private static func boolean(_ value: JSONValue) throws(MangoError) -> Bool {
        guard case .bool(let b) = value else {
            throw MangoError(400, "invalid_boolean", "Invalid boolean value: \(ErlangTerm.write(value))")
        }
        return b
    }

    private static func indexName(_ value: JSONValue) throws(MangoError) -> [String] {
        switch value {
        case .string(let name):
            // mango_opts:validate_use_index/1 splits a string at every `/` and drops a
            // leading `_design`: "_design/d/i" is ["d", "i"], "d/i" too, "_design/d" ["d"].
            let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            switch parts.count {
            case 1: return parts
            case 2: return parts[0] == "_design" ? [parts[1]] : parts
            case 3 where parts[0] == "_design": return [parts[1], parts[2]]
            default: break
            }
        case .array(let names) where names.count <= 2:
            let strings = names.compactMap(\.stringValue)
            if strings.count == names.count { return strings }
        default: break
        }
        throw MangoError(400, "invalid_index_name", "Invalid index name: \(ErlangTerm.write(value))")
    }

    private static func fieldList(_ value: JSONValue) throws(MangoError) -> [String] {
        guard case .array(let elements) = value else {
            throw MangoError(400, "invalid_fields", "Fields must be an array of strings, not: \(ErlangTerm.write(value))")
        }
        var fields: [String] = []
        for element in elements {
            guard case .string(let field) = element else {
                throw MangoError(400, "invalid_field", "Invalid JSON for field spec: \(ErlangTerm.write(element))")
            }
            do { _ = try FieldPath(parsing: field) } catch { throw MangoError(error) }
            fields.append(field)
        }
        return fields
    }
}
