import SetteeJSON

/// `keys` of `_all_docs` as CouchDB reads them. They are document ids, compared whole; a key
/// that is no string names no document, and its row is `{"key": <that key>, "error": "not_found"}`
/// (fabric_view_all_docs:open_doc/5 finds nothing): CouchDB 3.4.3 answers so for `[1]`, where
/// turning 1 into "1" found document "1" (all_docs_test.exs "POST with keys and limit").
extension AllDocsHandlers {
    /// What a non-string key is looked up as: `_`, NUL, then its JSON, an id no document can
    /// have (ids starting with `_` other than `_design/` and `_local/` are refused on write).
    private static let nonStringKeyMark = "_\u{0}"

    /// The id `key` is looked up as.
    static func lookupID(_ key: JSONValue) -> String {
        key.stringValue ?? nonStringKeyMark + JSONWriter.string(key)
    }

    /// A missing row's `key` as JSON: the non-string key it stands for, else the id as a string.
    static func writeMissingKey(_ id: String, to out: inout [UInt8]) {
        if id.hasPrefix(nonStringKeyMark) {
            out.append(contentsOf: id.utf8.dropFirst(nonStringKeyMark.utf8.count))
        } else {
            JSONWriter.writeString(id, to: &out)
        }
    }

    /// `{"queries": [...]}`'s list, as couch_mrview_util:get_view_queries/1 reads it.
    static func queryList(_ body: JSONObject) throws -> [JSONValue] {
        guard let queries = body["queries"] else {
            throw CouchError.badRequest("POST body must include `queries` parameter.")
        }
        guard let list = queries.arrayValue else { throw CouchError.badRequest("`queries` member must be an array.") }
        return list
    }
}
