import SetteeHTTP

typealias Handler = @Sendable (RequestContext) async throws -> HTTPResponse

/// The route table as a trie of path segments. At each level a literal segment
/// is tried first, then a `{name}` parameter, then a `{name...}` rest parameter,
/// backtracking when a branch ends without a route, so a path finds the route
/// an ordered first-match list with literals above parameters would give it.
/// Methods are dispatched by the matched node: HEAD is GET without a body, and
/// a method it lacks is 405 with `Allow` (both derived here, never in handlers).
struct Router: Sendable {
    private var root = Node()

    struct Match {
        let handlers: [HTTPMethod: Handler]
        let parameters: PathParameters
        /// The table's pattern that matched, `/{db}/_changes`.
        let pattern: String

        /// The handler for `method`; HEAD falls back to GET.
        func handler(for method: String) -> Handler? {
            guard let method = HTTPMethod(rawValue: method) else { return nil }
            return handlers[method] ?? (method == .HEAD ? handlers[.GET] : nil)
        }

        /// The methods a 405 names (its `Allow` and "Only … allowed"): CouchDB's own list
        /// where its handler writes one (`AllowLists`), else the ones this path answers,
        /// HEAD wherever GET is.
        var allowedMethods: [String] { AllowLists.byPattern[pattern] ?? answeredMethods }

        /// The methods this path answers, HEAD wherever GET is, sorted.
        var answeredMethods: [String] {
            var methods = Set(handlers.keys)
            if methods.contains(.GET) { methods.insert(.HEAD) }
            return methods.sorted().map(\.rawValue)
        }
    }

    /// Builds the trie from `(pattern, handlers)` rows such as
    /// `("/{db}/_design/{ddoc}/{attachment...}", [.GET: ...])`.
    init(_ table: [(String, [HTTPMethod: Handler])]) {
        for (pattern, handlers) in table {
            let segments = pattern.split(separator: "/").map(String.init)
            precondition(root.insert(segments[...], Route(handlers: handlers, pattern: pattern)),
                         "route \(pattern) is in the table twice")
        }
    }

    /// The route for decoded path segments. A segment `_design/x` or `_local/x`
    /// in the document position (an encoded `%2F`) is routed as the two segments
    /// it names, as CouchDB treats the id.
    func match(_ segments: [String]) -> Match? {
        var path = segments
        // The `/` is looked for as a byte first: a plain id has none, and searching it by
        // Character on every request cost more than the rest of this check.
        if path.count > 1, path[1].utf8.contains(UInt8(ascii: "/")), let slash = path[1].firstIndex(of: "/"),
           path[1][..<slash] == "_design" || path[1][..<slash] == "_local" {
            let name = String(path[1][path[1].index(after: slash)...])
            // `_local%2F` is the bare `/{db}/_local` to CouchDB ("Invalid _local document id.",
            // chttpd_db:db_req/2 on `<<"_local/">>`); `_design%2F` stays an illegal id.
            let prefix = String(path[1][..<slash])
            path.replaceSubrange(1...1, with: name.isEmpty && prefix == "_local" ? [prefix] : [prefix, name])
        }
        var parameters = PathParameters()
        guard let route = root.find(path[...], &parameters) else { return nil }
        return Match(handlers: route.handlers, parameters: parameters, pattern: route.pattern)
    }
}

extension Router {
    /// A row of the table.
    fileprivate struct Route: Sendable {
        let handlers: [HTTPMethod: Handler]
        let pattern: String
    }

    /// One level of the trie.
    fileprivate struct Node: Sendable {
        var route: Route?
        var literals: [String: Node] = [:]
        /// The `{name}` child, at most one per level (a dictionary only to hold a Node in a Node).
        var parameter: [PathParameters.Name: Node] = [:]
        var rest: (name: PathParameters.Name, route: Route)?

        /// False when the pattern already had handlers.
        mutating func insert(_ pattern: ArraySlice<String>, _ new: Route) -> Bool {
            guard let first = pattern.first else {
                guard route == nil else { return false }
                route = new
                return true
            }
            if first.hasPrefix("{") && first.hasSuffix("...}") {
                precondition(pattern.count == 1 && rest == nil, "a rest parameter ends its pattern")
                rest = (Self.name(first.dropFirst().dropLast(4)), new)
                return true
            }
            if first.hasPrefix("{") && first.hasSuffix("}") {
                let name = Self.name(first.dropFirst().dropLast())
                precondition(parameter.keys.allSatisfy { $0 == name }, "one parameter name per level: \(name)")
                return parameter[name, default: Node()].insert(pattern.dropFirst(), new)
            }
            return literals[first, default: Node()].insert(pattern.dropFirst(), new)
        }

        func find(_ path: ArraySlice<String>, _ parameters: inout PathParameters) -> Route? {
            guard let first = path.first else { return route }
            if let literal = literals[first], let found = literal.find(path.dropFirst(), &parameters) {
                return found
            }
            if let (name, node) = parameter.first, let found = node.find(path.dropFirst(), &parameters) {
                parameters[name] = first
                return found
            }
            if let (name, route) = rest {
                parameters[name] = path.joined(separator: "/")
                return route
            }
            return nil
        }

        private static func name(_ text: Substring) -> PathParameters.Name {
            guard let name = PathParameters.Name(rawValue: String(text)) else {
                preconditionFailure("unknown path parameter {\(text)}")
            }
            return name
        }
    }
}
