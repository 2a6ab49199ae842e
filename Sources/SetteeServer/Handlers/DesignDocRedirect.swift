internal import FoundationEssentials
import SetteeHTTP

/// `GET /{db}/_design%2F{name}...`: CouchDB answers 301 to the same URL with the
/// slash unescaped (chttpd_db `db_req` for a `_design/` path part), once the
/// database is open and its members checked. Other methods are served directly.
enum DesignDocRedirect {
    static func response(_ context: RequestContext) -> HTTPResponse? {
        let method = context.request.method
        guard method == "GET" || method == "HEAD" else { return nil }
        let raw = context.request.rawPath.split(separator: "/")
        guard raw.count >= 2, raw[1].utf8.count >= marker.count,
              raw[1].prefix(marker.count).lowercased() == marker else { return nil }
        return HTTPResponse(status: 301, headers: ["Location": context.absoluteURL(unescaped(context.request.target))])
    }

    private static let marker = "_design%2f"
    nonisolated(unsafe) private static let caseless = try! Regex(marker).ignoresCase()

    /// As CouchDB's `re:split(RawPath, "_design%2F", [caseless])` then
    /// `Head ++ "_design/" ++ Tail`: the first marker becomes `_design/`, any
    /// later one is dropped. The query string is kept.
    static func unescaped(_ target: String) -> String {
        var parts: [Substring] = []
        var rest = Substring(target)
        while let range = rest.firstRange(of: caseless) {
            parts.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        parts.append(rest)
        guard parts.count > 1 else { return target }
        return String(parts[0]) + "_design/" + parts.dropFirst().joined()
    }
}
