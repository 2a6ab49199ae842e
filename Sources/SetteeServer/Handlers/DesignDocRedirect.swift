internal import FoundationEssentials
import SetteeHTTP

/// `GET /{db}/_design%2F{name}...`: CouchDB answers 301 to the same URL with the
/// slash unescaped (chttpd_db `db_req` for a `_design/` path part), once the
/// database is open and its members checked. Other methods are served directly.
enum DesignDocRedirect {
    static func response(_ context: RequestContext) -> HTTPResponse? {
        let method = context.request.method
        guard method == "GET" || method == "HEAD" else { return nil }
        guard secondSegmentHasMarker(context.request.rawPath) else { return nil }
        return HTTPResponse(status: 301, headers: ["Location": context.absoluteURL(unescaped(context.request.target))])
    }

    private static let marker = "_design%2f"

    /// Whether the path's second non-empty segment begins with `_design%2f`, in any case.
    /// Scanned as bytes with no allocation: every document and attachment GET asks
    /// (splitting the path and lowercasing the segment was 1.5 % of a `GET`'s CPU).
    static func secondSegmentHasMarker(_ path: Substring) -> Bool {
        let bytes = path.utf8, slash = UInt8(ascii: "/")
        var index = bytes.startIndex, segmentsPassed = 0
        while index < bytes.endIndex {
            if bytes[index] == slash { index = bytes.index(after: index); continue }
            if segmentsPassed == 1 { break }
            while index < bytes.endIndex && bytes[index] != slash { index = bytes.index(after: index) }
            segmentsPassed += 1
        }
        for expected in marker.utf8 {
            guard index < bytes.endIndex else { return false }
            let byte = bytes[index]
            // ASCII letters fold to lower case; every other byte must match exactly.
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            guard folded == expected else { return false }
            index = bytes.index(after: index)
        }
        return true
    }
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
