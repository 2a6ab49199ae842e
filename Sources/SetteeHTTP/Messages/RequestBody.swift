import Synchronization

/// The body of a request, read on demand so that large uploads stream.
///
/// A handler either reads it piece by piece with `next()` or gathers it with
/// `collect(upTo:)`. Whatever the handler leaves unread, the connection
/// discards (or closes) before the next request. Reading is what sends
/// `100 Continue` when the client asked for it (RFC 9110 §10.1.1).
public struct RequestBody: Sendable {
    /// The declared length; nil for a chunked body.
    public let declaredLength: Int?
    private let source: @Sendable () async throws -> [UInt8]?

    /// A body that yields pieces from `source` until it returns nil.
    public init(declaredLength: Int?, source: @escaping @Sendable () async throws -> [UInt8]?) {
        self.declaredLength = declaredLength
        self.source = source
    }

    /// A body held in memory (tests, and small bodies read with the headers).
    public init(bytes: [UInt8]) {
        let box = OneShot(bytes.isEmpty ? nil : bytes)
        self.init(declaredLength: bytes.count, source: { box.take() })
    }

    public static var empty: RequestBody { RequestBody(bytes: []) }

    /// The next piece of the body, or nil at its end.
    /// - Throws: `HTTPError` when the client sent a malformed or truncated body.
    public func next() async throws -> [UInt8]? { try await source() }

    /// The whole body.
    /// - Throws: `HTTPError.bodyTooLarge` once more than `limit` bytes arrive.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        if let declaredLength, declaredLength > limit { throw HTTPError.bodyTooLarge(limit: limit) }
        var all: [UInt8] = []
        if let declaredLength { all.reserveCapacity(declaredLength) }
        while let piece = try await next() {
            if all.isEmpty && piece.count <= limit { all = piece; continue }
            guard all.count + piece.count <= limit else { throw HTTPError.bodyTooLarge(limit: limit) }
            all.append(contentsOf: piece)
        }
        return all
    }
}

/// A value handed out once.
private final class OneShot: Sendable {
    private let value: Mutex<[UInt8]?>
    init(_ value: [UInt8]?) { self.value = Mutex(value) }
    func take() -> [UInt8]? { value.withLock { v in defer { v = nil }; return v } }
}
