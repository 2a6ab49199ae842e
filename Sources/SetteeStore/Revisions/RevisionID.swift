/// A revision id, `N-sig`: generation `N` ≥ 1 and an opaque suffix.
///
/// Ordering is CouchDB's winner order: generation first, then the suffix as a
/// byte string. A 32-character suffix must be hex and is kept lowercased
/// (CouchDB 3.4.3 accepts uppercase with `new_edits=false` and stores it lowercased).
public struct RevisionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let generation: Int
    public let suffix: String

    public init(generation: Int, suffix: String) {
        precondition(generation >= 0, "a revision generation is never negative")
        self.generation = generation
        self.suffix = suffix
    }

    /// Parses `N-sig`; nil when it is not a valid revision id.
    /// Works on the UTF-8 bytes: it runs for every node of every tree read.
    public init?(_ text: String) {
        self.init(utf8: text.utf8)
    }

    /// Parses `N-sig` from its UTF-8 bytes (a column of the store, read in place).
    init?<Bytes: BidirectionalCollection>(utf8 bytes: Bytes) where Bytes.Element == UInt8, Bytes.SubSequence: Collection {
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        var digits = bytes[..<dash]
        // A leading `+`, as `Int(_:)` took before and Erlang's `list_to_integer` takes.
        if digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var generation = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), generation < 1 << 40 else { return nil }
            generation = generation * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard generation >= 1, generation < 1 << 40 else { return nil }
        let rest = bytes[bytes.index(after: dash)...]
        guard !rest.isEmpty else { return nil }
        var suffix = String(decoding: rest, as: UTF8.self)
        if rest.count == 32 {
            guard rest.allSatisfy({ $0.isHexDigit }) else { return nil }
            if rest.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }) { suffix = suffix.lowercased() }
        }
        self.init(generation: generation, suffix: suffix)
    }

    public var description: String { "\(generation)-\(suffix)" }

    public static func < (a: RevisionID, b: RevisionID) -> Bool {
        if a.generation != b.generation { return a.generation < b.generation }
        return a.suffix.utf8.lexicographicallyPrecedes(b.suffix.utf8)
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
