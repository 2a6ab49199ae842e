import SetteeJSON

/// A view parameter from a JSON body (a POST to `_view`, `_all_docs`, or one of `queries`), read
/// as couch_mrview_http:parse_param/4 reads decoded values: an integer must be a JSON integer
/// (`"1"` is refused), a boolean `true`/`false` or a string spelling one, and a refusal names
/// the value as Erlang's `~p` prints it (`<<"x">>`, `1.5`, `null`), as CouchDB 3.4.3 answers
/// (view_errors_test.exs, all_docs_test.exs neighbourhood).
enum DecodedParameter {
    /// couch_mrview_http:parse_int/1.
    static func int(_ value: JSONValue) throws -> Int {
        guard let int = value.intValue else {
            throw CouchError.queryParseError("Invalid value for integer: \(ErlangTerm.print(value, printable: .ascii))")
        }
        return int
    }

    /// couch_mrview_http:parse_pos_int/1 (`limit`, `skip`, `group_level`).
    static func nonNegativeInt(_ value: JSONValue) throws -> Int {
        let int = try int(value)
        guard int >= 0 else { throw CouchError.queryParseError("Invalid value for positive integer: \(int)") }
        return int
    }

    /// couch_mrview_http:parse_boolean/1: a string is read as the query string's text is.
    static func bool(_ value: JSONValue) throws -> Bool {
        switch value {
        case .bool(let bool): return bool
        case .string(let text): return try QueryOptions(items: [("", text)]).bool("")
        default: throw CouchError.queryParseError("Invalid boolean parameter: \(ErlangTerm.print(value, printable: .ascii))")
        }
    }
}
