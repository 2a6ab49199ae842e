internal import FoundationEssentials
import SetteeJSON

/// The query string's parameters with CouchDB's parsing rules: booleans are
/// `true`/`false`, integers are decimal, JSON parameters are JSON text. A bad
/// value is a 400 `query_parse_error`, as `couch_mrview_http:parse_params` answers.
struct QueryOptions: Sendable {
    let items: [(name: String, value: String)]

    init(items: [(name: String, value: String)]) { self.items = items }

    subscript(name: String) -> String? { items.first { $0.name == name }?.value }
    func contains(_ name: String) -> Bool { self[name] != nil }

    /// A boolean parameter, `true`/`false` in any case (`couch_mrview_http:parse_boolean`);
    /// `defaultValue` when absent.
    func bool(_ name: String, default defaultValue: Bool = false) throws -> Bool {
        guard let text = self[name] else { return defaultValue }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw CouchError.queryParseError("Invalid boolean parameter: \(Self.erlangQuoted(text))")
        }
    }

    /// A document read flag: only exactly `true` turns it on (`couch_httpd_db:parse_doc_query`).
    func flag(_ name: String) -> Bool { self[name] == "true" }

    /// An integer as Erlang's `list_to_integer` reads it (`couch_mrview_http:parse_int`):
    /// an optional sign and digits; a value past Int's range is clamped (Erlang's
    /// integers have no range, and a limit that large means no limit).
    func int(_ name: String) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Self.erlangInteger(text) else {
            throw CouchError.queryParseError("Invalid value for integer: \(Self.erlangQuoted(text))")
        }
        return value
    }

    /// A non-negative integer (`limit`, `skip`: `couch_mrview_http:parse_pos_int`).
    func nonNegativeInt(_ name: String) throws -> Int? {
        guard let value = try int(name) else { return nil }
        guard value >= 0 else {
            throw CouchError.queryParseError("Invalid value for positive integer: \(Self.erlangQuoted(self[name] ?? ""))")
        }
        return value
    }

    static func erlangInteger(_ text: String) -> Int? {
        if let value = Int(text) { return value }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return negative ? Int.min : Int.max
    }

    /// A string as Erlang's `~p` prints it in CouchDB's messages: `"text"`, or `[]` when empty.
    static func erlangQuoted(_ text: String) -> String {
        guard !text.isEmpty else { return "[]" }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// A JSON-valued parameter (`key`, `startkey`, `open_revs`, ...).
    func json(_ name: String) throws -> JSONValue? {
        guard let text = self[name] else { return nil }
        do { return try JSONReader.parse(text) } catch {
            throw CouchError.badRequest("invalid UTF-8 JSON")
        }
    }

    /// A JSON string parameter such as `startkey="a"`.
    func jsonString(_ name: String) throws -> String? {
        guard let value = try json(name) else { return nil }
        guard let s = value.stringValue else {
            throw CouchError.queryParseError("Parameter \(name) must be a JSON string")
        }
        return s
    }
}
