import SetteeJSON

/*
 `key`, `keys`, `startkey`/`start_key` and `endkey`/`end_key` as CouchDB applies them:
 one after the other, the body's members in their order and then the query string's
 (couch_mrview_http:parse_body_and_query/3, parse_params/4), each over what came before.
 `key`, and a `keys` of one key, set both ends of the range; a bound after it moves one
 end, so `?keys=[2]&startkey=1` reads 1 to 2 and `?startkey=1&keys=[2]` reads 2 alone.
 A `keys` of any other length is a list of keys, one read each, which no bound may join
 (couch_mrview_util:validate_args/1), before or after it. Read from Apache CouchDB 3.4.3.
 */
extension ViewQuery {
    /// Sets `keys`, `isMultiKey`, `startKey` and `endKey` (after `inclusiveEnd`).
    mutating func applyKeyBounds(_ q: QueryOptions, body: JSONObject?) throws {
        let named = try q.keyBounds(after: body)
        var multiKeys: [JSONValue]?
        var start: JSONValue?, end: JSONValue?
        /// Both ends, set by one key and not moved since.
        var exact: JSONValue?
        for (name, value) in named {
            switch name {
            case "key": (start, end, exact) = (value, value, value)
            case "keys":
                // A body's non-list `keys` was refused before (couch_mrview_util:get_view_keys/1); here
                // it is the query string's, refused by couch_mrview_util:validate_args/1.
                guard case .array(let list) = value else {
                    throw CouchError.queryParseError("`keys` must be an array of strings.")
                }
                if list.count == 1 {
                    (start, end, exact, multiKeys) = (list[0], list[0], list[0], nil)
                } else {
                    multiKeys = list
                }
            case "startkey", "start_key": (start, exact) = (value, nil)
            default: (end, exact) = (value, nil)
            }
        }
        if let multiKeys {
            if !multiKeys.isEmpty, start != nil || end != nil {
                throw CouchError.queryParseError("`keys` is incompatible with `key`, `start_key` and `end_key`")
            }
            (keys, isMultiKey) = (multiKeys, true)
        } else if let exact, inclusiveEnd {
            keys = [exact]  // one key: a point read
        } else {
            (startKey, endKey) = (start, end)
        }
    }
}
