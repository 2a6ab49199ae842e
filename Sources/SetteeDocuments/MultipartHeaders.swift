/// A multipart part's header fields in order; names compare case-insensitively
/// (RFC 2046 §5.1 takes RFC 5322's fields). Not SetteeHTTP's `HTTPHeaders`:
/// multipart bodies come from HTTP requests and from libcurl replies alike.
public struct MultipartHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// The first value of `name`, nil when absent.
    public subscript(name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: MultipartHeaders, b: MultipartHeaders) -> Bool {
        a.fields.elementsEqual(b.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
