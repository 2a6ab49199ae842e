import SetteeJSON

/// The types a design document's members must have, checked when it is written, as
/// CouchDB checks them (couch_mrview:validate_ddoc_fields/1): the first member of the
/// wrong type, in the table's order, is refused with 400 `invalid_design_doc`
/// "`views.v.map` field must have string type"; a view without `map` is refused too.
enum DesignDocumentFields {
    enum FieldType: String { case string, array, object, boolean }

    /// One step of a path: a member by name, or every member of an object.
    enum Step {
        case key(String)
        case any
    }

    typealias Path = [(step: Step, types: [FieldType])]

    /// CouchDB's table: a `"language": "query"` document's maps are Mango's objects.
    static func paths(mapType: FieldType) -> [Path] {
        [
            [(.key("filters"), [.object]), (.any, [.object, .string])],
            [(.key("language"), [.string])],
            [(.key("lists"), [.object]), (.any, [.object, .string])],
            [(.key("options"), [.object])],
            [(.key("options"), [.object]), (.key("include_design"), [.boolean])],
            [(.key("options"), [.object]), (.key("local_seq"), [.boolean])],
            [(.key("options"), [.object]), (.key("partitioned"), [.boolean])],
            [(.key("rewrites"), [.string, .array])],
            [(.key("shows"), [.object]), (.any, [.object, .string])],
            [(.key("updates"), [.object]), (.any, [.object, .string])],
            [(.key("validate_doc_update"), [.string])],
            [(.key("views"), [.object]), (.key("lib"), [.object])],
            [(.key("views"), [.object]), (.any, [.object]), (.key("map"), [mapType])],
            [(.key("views"), [.object]), (.any, [.object]), (.key("reduce"), [.string])],
        ]
    }

    /// Why `body` is refused, nil when its members have their types.
    static func refusal(_ body: JSONValue) -> String? {
        let mapType: FieldType = body["language"]?.stringValue == "query" ? .object : .string
        for path in paths(mapType: mapType) {
            if let reason = check(body, path[...], at: []) { return reason }
        }
        // couch_mrview:require_map_function_for_views/1
        for view in body["views"]?.objectValue ?? JSONObject() where view.key != "lib" && view.value["map"] == nil {
            return "View `\(view.key)` must contain map function"
        }
        return nil
    }

    private static func check(_ value: JSONValue, _ rest: ArraySlice<(step: Step, types: [FieldType])>,
                              at path: [String]) -> String? {
        guard let (step, types) = rest.first, case .object(let members) = value else { return nil }
        let names: [String]
        switch step {
        case .key(let name): names = [name]
        case .any: names = members.members.map(\.key)
        }
        for name in names {
            guard let child = members[name] else { continue }  // an absent member is no error
            guard types.contains(where: { has(child, $0) }) else {
                // CouchDB names the types last first ("string or object" for [object, string]).
                let expected = types.reversed().map(\.rawValue).joined(separator: " or ")
                return "`\((path + [name]).joined(separator: "."))` field must have \(expected) type"
            }
            if let reason = check(child, rest.dropFirst(), at: path + [name]) { return reason }
        }
        return nil
    }

    private static func has(_ value: JSONValue, _ type: FieldType) -> Bool {
        switch (type, value) {
        case (.string, .string), (.array, .array), (.object, .object), (.boolean, .bool): true
        default: false
        }
    }
}
