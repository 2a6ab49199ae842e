import SetteeJSON

/*
 A design document's `rewrites` array (deprecated in CouchDB 3, still served), as
 CouchDB 3.4's chttpd_rewrite matches it. Each rule has `from` (segments, `:name`
 binding one segment, `*` the rest), `to` (the same, relative to the design document),
 optional `method` and `query` (values may be `:name`, `*` or arrays of them) and
 `formats` (`int`, `bool` per binding).

 The first rule whose method and `from` match wins. Its bindings, then the request's
 query (JSON-valued options decoded), then the rule's query with variables replaced are
 the new query string (bindings the rule's query names are left out; `*` never goes
 there); `to`'s bindings are replaced from the same list and `*` takes the unmatched
 rest of the path. More than two `..` segments in any rule's `to` or `from` is refused
 (`[chttpd] secure_rewrites`, on by default).
*/

/// The rules of one design document, parsed.
struct RewriteRules {
    /// A path segment of a rule: a literal, or a binding (`:name`; `*` binds `*`).
    enum Part: Equatable {
        case literal(String)
        case bind(String)
    }

    struct Rule {
        let method: String?
        let from: [Part]
        let to: [Part]
        let query: [JSONObject.Member]
        let formats: JSONObject
    }

    /// Options whose values are JSON in a query string (chttpd_rewrite's `maybe_json`).
    static let jsonOptions: Set<String> = ["key", "startkey", "start_key", "endkey", "end_key", "keys"]

    let rules: [Rule]

    /// - Throws: 500 `insecure_rewrite_rule` for a rule climbing above the database;
    ///   500 `error` `invalid_rewrite_target` for a rule without `to`.
    init(_ rules: [JSONValue]) throws {
        self.rules = try rules.compactMap { value -> Rule? in
            guard case .object(let rule) = value else { return nil }
            guard let to = rule["to"]?.stringValue else { throw CouchError(500, "error", "invalid_rewrite_target") }
            return Rule(method: rule["method"]?.stringValue,
                        from: try rule["from"]?.stringValue.map(Self.parts) ?? [.bind("*")],
                        to: try Self.parts(to), query: rule["query"]?.objectValue?.members ?? [],
                        formats: rule["formats"]?.objectValue ?? JSONObject())
        }
    }

    /// A path's segments as rule parts: empty segments dropped, `..` counted.
    static func parts(_ path: String) throws -> [Part] {
        var climbs = 0
        return try path.split(separator: "/").map { segment -> Part in
            if segment == ".." {
                climbs += 1
                if climbs > 2 { throw CouchError(500, "insecure_rewrite_rule", "too many ../.. segments") }
            }
            if segment == "*" { return .bind("*") }
            return segment.hasPrefix(":") ? .bind(String(segment.dropFirst())) : .literal(String(segment))
        }
    }

    /// The path (segments, not yet encoded, relative to the design document) and query the
    /// request is rewritten to; nil when no rule matches.
    func rewrite(method: String, path: [String], query: [(name: String, value: String)])
        -> (path: [String], query: [(name: String, value: String)])? {
        let requestQuery = query.map { item -> (String, JSONValue) in
            guard Self.jsonOptions.contains(item.name) else { return (item.name, .string(item.value)) }
            return (item.name, (try? JSONReader.parse(item.value)) ?? .string(item.value))
        }
        for rule in rules where rule.method == nil || rule.method == method {
            guard let (remaining, bound) = Self.bind(rule.from, path) else { continue }
            let bindings = bound + requestQuery
            // The rule's query, in reverse (chttpd_rewrite builds it by prepending).
            let ruleQuery = rule.query.reversed().map { member in
                (member.key, Self.replace(member.value, bindings, rule.formats))
            }
            let named = Set(ruleQuery.map(\.0))
            let final = bindings.filter { !named.contains($0.0) } + ruleQuery
            return (Self.newPath(rule.to, final, remaining), Self.encodedQuery(final))
        }
        return nil
    }

    /// Matches `from` against `path`: the unmatched rest (after a final `*`) and the
    /// bindings, latest first (chttpd_rewrite:bind_path/3).
    private static func bind(_ from: [Part], _ path: [String]) -> ([String], [(String, JSONValue)])? {
        var bindings: [(String, JSONValue)] = []
        var index = 0
        for (position, part) in from.enumerated() {
            if part == .bind("*"), position == from.count - 1 { return (Array(path[index...]), bindings.reversed()) }
            guard index < path.count else { return nil }
            switch part {
            case .bind(let name): bindings.append((name, .string(path[index])))
            case .literal(let literal): guard literal == path[index] else { return nil }
            }
            index += 1
        }
        return index == path.count ? ([], bindings.reversed()) : nil
    }

    /// A rule query value with `:name` and `*` replaced (in arrays too), formatted.
    private static func replace(_ value: JSONValue, _ bindings: [(String, JSONValue)], _ formats: JSONObject) -> JSONValue {
        func variable(_ text: String) -> JSONValue {
            let name = text == "*" ? "*" : String(text.dropFirst())
            guard text == "*" || text.hasPrefix(":") else { return .string(text) }
            let found = bindings.first { $0.0 == name }?.1 ?? .string(text)
            return format(found, formats[name]?.stringValue)
        }
        switch value {
        case .string(let text): return variable(text)
        case .array(let items): return .array(items.map { item in item.stringValue.map { $0.hasPrefix(":") ? variable($0) : item } ?? item })
        default: return value
        }
    }

    private static func format(_ value: JSONValue, _ format: String?) -> JSONValue {
        guard let text = value.stringValue else { return value }
        switch format {
        case "int": return Int(text).map { .int($0) } ?? value
        case "bool": return ["true": JSONValue.bool(true), "false": .bool(false)][text.lowercased()] ?? value
        default: return value
        }
    }

    /// `to` with bindings replaced ("undefined" when unbound) and `*` as the unmatched rest.
    private static func newPath(_ to: [Part], _ bindings: [(String, JSONValue)], _ remaining: [String]) -> [String] {
        var path: [String] = []
        for part in to {
            switch part {
            case .bind("*"): return path + remaining
            case .bind(let name): path.append(bindings.first { $0.0 == name }.map { text($0.1) } ?? "undefined")
            case .literal(let literal): path.append(literal)
            }
        }
        return path
    }

    /// The new query string's items, in CouchDB's order (reversed), JSON options encoded, `*` left out.
    private static func encodedQuery(_ bindings: [(String, JSONValue)]) -> [(name: String, value: String)] {
        bindings.reversed().filter { $0.0 != "*" }.map { name, value in
            (name, jsonOptions.contains(name) ? JSONWriter.string(value) : text(value))
        }
    }

    /// A value as an Erlang iolist turns into text: a string as is, an array of strings joined.
    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .array(let items) where items.allSatisfy({ $0.stringValue != nil }): return items.compactMap(\.stringValue).joined()
        default: return JSONWriter.string(value)
        }
    }
}
