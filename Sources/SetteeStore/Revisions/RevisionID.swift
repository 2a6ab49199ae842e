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
    public init?(_ text: String) {
        guard let dash = text.firstIndex(of: "-"),
              let generation = Int(text[..<dash]), generation >= 1, generation < 1 << 40,
              text[..<dash].allSatisfy(\.isASCII)
        else { return nil }
        var suffix = String(text[text.index(after: dash)...])
        guard !suffix.isEmpty else { return nil }
        if suffix.utf8.count == 32 {
            guard suffix.utf8.allSatisfy({ $0.isHexDigit }) else { return nil }
            suffix = suffix.lowercased()
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
