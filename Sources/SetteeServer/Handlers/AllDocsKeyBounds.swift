import SetteeJSON

/*
 `_all_docs`' `key`, `keys`, `startkey`/`start_key` and `endkey`/`end_key` as CouchDB
 applies them: one after the other, a POST body's members in their order and then the
 query string's, each over what came before (couch_mrview_http:parse_body_and_query/3).
 `key` sets both ends, and a later bound moves one (`?key="b"&startkey="a"` reads a to b).
 The keys read are the body's `keys` (else the query string's), taken apart; each `keys`
 of one key also sets both ends where it stands. The keys stand only if no bound is left
 that names another key: `{"startkey":"a","keys":["b"]}` reads b, while
 `{"keys":["b"],"startkey":"a"}`, or a body's `["y"]` with a query string's `keys=["z"]`,
 is query_parse_error (couch_mrview_util:validate_args/1). Read from Apache CouchDB 3.4.3.
 */
struct AllDocsKeyBounds {
    var start: JSONValue?
    var end: JSONValue?
    var keys: [JSONValue]?

    /// - Parameters:
    ///   - keys: the keys to read, when the request names some.
    ///   - notAList: the error for a `keys` that is no list (the query string's and the
    ///     body's words differ).
    init(_ ordered: [(name: String, value: JSONValue)], keys: [JSONValue]?, notAList: CouchError) throws {
        self.keys = keys
        for (name, value) in ordered {
            switch name {
            case "key": (start, end) = (value, value)
            case "keys":
                guard let list = value.arrayValue else { throw notAList }
                if list.count == 1 { (start, end) = (list[0], list[0]) }
            case "startkey", "start_key": start = value
            case "endkey", "end_key": end = value
            default: break
            }
        }
        guard let keys, !keys.isEmpty, start != nil || end != nil else { return }
        guard keys.count == 1, start == nil || start == keys[0], end == nil || end == keys[0] else {
            throw CouchError.queryParseError("`keys` is incompatible with `key`, `start_key` and `end_key`")
        }
    }
}
