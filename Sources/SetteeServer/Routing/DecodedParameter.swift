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
            throw CouchError.queryParseError("Invalid value for integer: \(ErlangTerm.text(value))")
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
        default: throw CouchError.queryParseError("Invalid boolean parameter: \(ErlangTerm.text(value))")
        }
    }
}

/// A decoded JSON value as Erlang's `io_lib:format("~p", ...)` prints jiffy's term for it, for
/// CouchDB's error reasons: strings are binaries (`<<"x">>`), objects `{[{<<"k">>,V}]}`.
enum ErlangTerm {
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): bool ? "true" : "false"
        case .number(let number): self.number(number.text)
        case .string(let string): binary(string)
        case .array(let items): "[" + items.map(text).joined(separator: ",") + "]"
        case .object(let object):
            "{[" + object.members.map { "{" + binary($0.key) + "," + text($0.value) + "}" }.joined(separator: ",") + "]}"
        }
    }

    /// Integers as written; floats as Erlang's shortest round-trip form (`1.5`, `1.0e100`).
    private static func number(_ literal: String) -> String {
        guard literal.contains(where: { ".eE".contains($0) }), let double = Double(literal) else { return literal }
        var printed = "\(double)".replacing("e+", with: "e")
        if let e = printed.firstIndex(of: "e"), !printed[..<e].contains(".") {
            printed.insert(contentsOf: ".0", at: e)
        }
        return printed
    }

    /// `<<"text">>` when every byte is printable ASCII, else the bytes (`<<195,169>>`); `<<>>` empty.
    private static func binary(_ string: String) -> String {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty else { return "<<>>" }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return "<<" + bytes.map(String.init).joined(separator: ",") + ">>"
        }
        return "<<\"" + string.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\">>"
    }
}
