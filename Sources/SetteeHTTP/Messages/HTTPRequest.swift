public import Logging

/// One parsed HTTP/1.1 request. The target is kept raw (still percent-encoded)
/// so that a server can split the path before decoding: CouchDB keeps `%2F`
/// inside a document id as part of the id.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as sent, e.g. `/db/doc%2F1?rev=1-abc`.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: RequestBody
    /// The peer's address as text (`127.0.0.1:53122`, `[::1]:5112`).
    public var remoteAddress: String
    /// The common name of the client's TLS certificate, when `[ssl]` asks for one and
    /// the one sent verified: the server may take it as the user's name.
    public var clientCertificateName: String?
    /// Carries connection and request metadata.
    public var logger: Logger

    public init(
        method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
        body: RequestBody = .empty, remoteAddress: String = "", logger: Logger = Logger(label: "settee.http")
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.logger = logger
    }

    /// The path part of the target, still percent-encoded.
    /// (Targets are scanned as UTF-8 bytes: `?`, `/`, `&` and `=` are ASCII, and
    /// Character-based searching was a few percent of a `GET`'s CPU.)
    public var rawPath: Substring {
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }

    /// The query part of the target without `?`, still encoded; nil if absent.
    public var rawQuery: Substring? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: q)...]
    }

    /// Path segments, each percent-decoded on its own (so `a%2Fb` stays one segment `a/b`).
    /// Nil when a segment is not valid percent-encoded UTF-8.
    public var pathSegments: [String]? { pathSegments(plusAsSpace: false) }

    /// The same, `+` decoded to a space when `plusAsSpace` (CouchDB's `[chttpd]
    /// decode_plus_to_space`, which it applies to paths as to query strings).
    public func pathSegments(plusAsSpace: Bool) -> [String]? {
        let path = rawPath.utf8
        var segments: [String] = []
        segments.reserveCapacity(4)  // `/db/docid` and the like: one allocation
        var start = path.startIndex
        while start < path.endIndex {
            let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.endIndex
            if start < end {
                guard let decoded = PercentDecoding.decode(Substring(path[start..<end]), plusAsSpace: plusAsSpace) else {
                    return nil
                }
                segments.append(decoded)
            }
            start = end < path.endIndex ? path.index(after: end) : end
        }
        return segments
    }

    /// Decoded query parameters in order (`+` decodes to a space, as in HTML forms and CouchDB).
    /// Pairs are separated by `&` or `;`, as HTML 4.01 (B.2.2) asks servers to accept and as
    /// CouchDB's mochiweb_util:parse_qs/1 does (`?limit=2;` is `limit=2`).
    /// Nil when a name or value is not valid percent-encoded UTF-8.
    public var queryItems: [(name: String, value: String)]? { queryItems(plusAsSpace: true) }

    /// The same, `+` kept as it is unless `plusAsSpace` (CouchDB's `[chttpd] decode_plus_to_space`).
    public func queryItems(plusAsSpace: Bool) -> [(name: String, value: String)]? {
        guard let rawQuery else { return [] }
        var items: [(name: String, value: String)] = []
        let separators: Set<UInt8> = [UInt8(ascii: "&"), UInt8(ascii: ";")]
        for pair in rawQuery.utf8.split(omittingEmptySubsequences: true, whereSeparator: separators.contains) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = Substring(pair[..<(equals ?? pair.endIndex)])
            let rawValue = equals.map { Substring(pair[pair.index(after: $0)...]) } ?? ""
            guard let name = PercentDecoding.decode(rawName, plusAsSpace: plusAsSpace),
                  let value = PercentDecoding.decode(rawValue, plusAsSpace: plusAsSpace)
            else { return nil }
            items.append((name: name, value: value))
        }
        return items
    }
}

public enum HTTPVersion: Sendable, Equatable {
    case http10, http11
    public var text: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
}
