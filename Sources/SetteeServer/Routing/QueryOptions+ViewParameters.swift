import SetteeJSON

/// The view parameters CouchDB 3.4.3 reads on `_all_docs`, `_local_docs` and `_all_dbs`
/// too (couch_mrview_http:parse_param/4), checked in the order the request gives them, so
/// the first bad one is refused with CouchDB's answer even where Settee has no use for
/// it there (`conflicts` on `_all_dbs`). Parameters it does not know pass.
extension QueryOptions {
    static let booleanViewParameters: Set<String> = [
        "reduce", "group", "inclusive_end", "include_docs", "attachments", "att_encoding_info", "update_seq",
        "conflicts", "sorted", "descending",
    ]
    static let jsonViewParameters: Set<String> = ["key", "keys", "startkey", "start_key", "endkey", "end_key"]
    static let countViewParameters: Set<String> = ["limit", "skip", "group_level"]

    /// `key`, `keys`, `startkey`/`start_key` and `endkey`/`end_key` in the order CouchDB
    /// applies them, each over the one before: a POST body's members, then the query
    /// string's (couch_mrview_http:parse_body_and_query/3), each read as JSON as `json(_:)`
    /// reads it (a name may come several times).
    func keyBounds(after body: JSONObject?) throws -> [(name: String, value: JSONValue)] {
        let fromBody = body?.members.filter { Self.jsonViewParameters.contains($0.key) }.map { ($0.key, $0.value) }
        return try (fromBody ?? []) + items.filter { Self.jsonViewParameters.contains($0.name) }.map { item in
            do { return (item.name, try JSONReader.parse(item.value)) } catch {
                throw CouchError.badRequest("invalid UTF-8 JSON")
            }
        }
    }
    /// The values each word-valued parameter may take.
    static let wordViewParameters: [String: Set<String>] = [
        "stale": ["ok", "update_after"], "stable": ["true", "false"], "update": ["true", "false", "lazy"],
    ]

    /// - Throws: 400 for the first parameter CouchDB refuses, in its words.
    func checkViewParameters() throws {
        for item in items {
            let one = QueryOptions(items: [item])
            if Self.booleanViewParameters.contains(item.name) {
                _ = try one.bool(item.name)
            } else if Self.jsonViewParameters.contains(item.name) {
                _ = try one.json(item.name)
            } else if Self.countViewParameters.contains(item.name) {
                _ = try one.nonNegativeInt(item.name)
            } else if let words = Self.wordViewParameters[item.name], !words.contains(item.value) {
                throw CouchError.queryParseError("Invalid value for `\(item.name)`.")
            }
        }
    }
}
