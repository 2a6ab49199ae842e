import SetteeJSON

/// The query string's parameters with CouchDB's parsing rules: booleans are
/// `true`/`false`, integers are decimal, JSON parameters are JSON text. A bad
/// value is a 400 `query_parse_error`, as `couch_mrview_http:parse_params` answers.
struct QueryOptions: Sendable {
    let items: [(name: String, value: String)]

    init(items: [(name: String, value: String)]) { self.items = items }

    subscript(name: String) -> String? { items.first { $0.name == name }?.value }
    func contains(_ name: String) -> Bool { self[name] != nil }

    /// A boolean parameter; `defaultValue` when absent.
    func bool(_ name: String, default defaultValue: Bool = false) throws -> Bool {
        guard let text = self[name] else { return defaultValue }
        switch text {
        case "true": return true
        case "false": return false
        default: throw CouchError.queryParseError("Invalid boolean parameter: \"\(text)\"")
        }
    }

    /// A document read flag: only exactly `true` turns it on (`couch_httpd_db:parse_doc_query`).
    func flag(_ name: String) -> Bool { self[name] == "true" }

    func int(_ name: String) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text) else { throw CouchError.queryParseError("Invalid value for integer: \"\(text)\"") }
        return value
    }

    /// A non-negative integer (`limit`, `skip`).
    func nonNegativeInt(_ name: String) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw CouchError.queryParseError("Invalid value for positive integer: \"\(text)\"")
        }
        return value
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
