/// Header fields in the order received. Names compare case-insensitively
/// (RFC 9110 §5.1); repeated fields are kept (RFC 9110 §5.3).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Makes room for `capacity` fields in all.
    public mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }

    /// Replaces every field `name` with one field of `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

extension String {
    /// ASCII case-insensitive equality, which is what HTTP field names need.
    /// (On the contiguous bytes when both strings have them, as native strings do: every
    /// header lookup runs this, and iterating two UTF-8 views in `zip` cost more.)
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        let contiguous = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for index in 0..<x.count where !Self.sameLetter(x[index], y[index]) { return false }
                return true
            }
        }
        if let contiguous = contiguous ?? nil { return contiguous }
        return zip(a, b).allSatisfy(Self.sameLetter)
    }

    private static func sameLetter(_ x: UInt8, _ y: UInt8) -> Bool {
        x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
    }
}
