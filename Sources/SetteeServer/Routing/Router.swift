import SetteeHTTP

/// A path pattern segment. `docID` takes one segment, or two when the first is
/// `_design` or `_local` (CouchDB's reserved id prefixes); `attachment` takes
/// the rest of the path, so attachment names may contain `/`.
enum Segment: Sendable {
    case literal(String)
    case db
    case docID
    case attachment
}

typealias Handler = @Sendable (RequestContext) async throws -> HTTPResponse

/// One row of the route table: a pattern and its handler per method.
struct Route: Sendable {
    let pattern: [Segment]
    let handlers: [String: Handler]

    init(_ pattern: [Segment], _ handlers: [String: Handler]) {
        self.pattern = pattern
        self.handlers = handlers
    }

    /// The methods this route answers, HEAD included wherever GET is (405's `Allow`).
    var allowedMethods: [String] {
        var methods = Set(handlers.keys)
        if methods.contains("GET") { methods.insert("HEAD") }
        return methods.sorted()
    }
}

/// Finds the route for a path: the first row of the table whose pattern
/// matches. Method dispatch, HEAD (a GET without its body) and 405 + `Allow`
/// come from the table, never from handlers.
struct Router: Sendable {
    let routes: [Route]

    struct Match {
        let route: Route
        let parameters: PathParameters
    }

    func match(_ segments: [String]) -> Match? {
        for route in routes {
            if let parameters = Self.bind(route.pattern, to: segments) { return Match(route: route, parameters: parameters) }
        }
        return nil
    }

    private static func bind(_ pattern: [Segment], to segments: [String]) -> PathParameters? {
        var parameters = PathParameters()
        var i = 0
        for segment in pattern {
            guard i < segments.count else { return nil }
            switch segment {
            case .literal(let text):
                guard segments[i] == text else { return nil }
                i += 1
            case .db:
                parameters.db = segments[i]
                i += 1
            case .docID:
                if (segments[i] == "_design" || segments[i] == "_local"), i + 1 < segments.count {
                    parameters.docID = segments[i] + "/" + segments[i + 1]
                    i += 2
                } else {
                    parameters.docID = segments[i]
                    i += 1
                }
            case .attachment:
                parameters.attachment = segments[i...].joined(separator: "/")
                i = segments.count
            }
        }
        return i == segments.count ? parameters : nil
    }
}
