/// A revision id, `N-sig`: generation `N` ≥ 1 and an opaque suffix.
///
/// Ordering is CouchDB's winner order: generation first, then the suffix in the
/// form CouchDB stores it (`<`). A 32-character suffix must be hex and is kept lowercased
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
    /// Works on the contiguous UTF-8 bytes: walking a `String.UTF8View` index by
    /// index cost a replicated `_bulk_docs` 5 % of its CPU (two ids per document).
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ RevisionID(utf8: $0) }) else { return nil }
        self = parsed
    }

    /// Generation `generation` with suffix `suffix`, checked as `init?(_:)` checks
    /// the text after the dash (`_revisions` gives the two apart); nil when invalid.
    public init?(generation: Int, validating suffix: String) {
        var suffix = suffix
        guard generation >= 1, generation < 1 << 40,
              let checked = suffix.withUTF8({ Self.checkedSuffix($0) }) else { return nil }
        self.init(generation: generation, suffix: checked)
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
        guard let suffix = Self.checkedSuffix(bytes[bytes.index(after: dash)...]) else { return nil }
        self.init(generation: generation, suffix: suffix)
    }

    /// The suffix as stored: not empty, and a 32-character one hex, lowercased.
    private static func checkedSuffix<Bytes: Collection>(_ rest: Bytes) -> String? where Bytes.Element == UInt8 {
        guard !rest.isEmpty else { return nil }
        let suffix = String(decoding: rest, as: UTF8.self)
        guard rest.count == 32 else { return suffix }
        guard rest.allSatisfy({ $0.isHexDigit }) else { return nil }
        return rest.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }) ? suffix.lowercased() : suffix
    }

    public var description: String { "\(generation)-\(suffix)" }

    /// CouchDB's order (`couch_doc:parse_revid`): the generation, then the suffix
    /// in the form CouchDB stores it, compared bytewise as Erlang compares binaries
    /// (a prefix first). A 32-hex-digit suffix is stored as its 16 decoded bytes,
    /// any other as its raw bytes, so `1-cb78…` (0xcb) outranks `1-conflict` ('c',
    /// 0x63) although its text sorts first. Two suffixes of one kind compare as
    /// their text does (lower-case hex orders as the bytes it spells), so only a
    /// mixed pair decodes.
    public static func < (a: RevisionID, b: RevisionID) -> Bool {
        if a.generation != b.generation { return a.generation < b.generation }
        let (aHex, bHex) = (a.isHexDigest, b.isHexDigest)
        if aHex == bHex { return a.suffix.utf8.lexicographicallyPrecedes(b.suffix.utf8) }
        return a.storedSuffix.lexicographicallyPrecedes(b.storedSuffix)
    }

    /// Whether CouchDB stores the suffix decoded: exactly 32 hex digits.
    var isHexDigest: Bool { suffix.utf8.count == 32 && suffix.utf8.allSatisfy(\.isHexDigit) }

    /// The suffix's bytes as CouchDB stores them: 16 decoded bytes for a hex digest,
    /// else its UTF-8.
    var storedSuffix: [UInt8] {
        guard isHexDigest else { return Array(suffix.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for digit in suffix.utf8 {
            let value = digit.hexValue
            if let h = high {
                bytes.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }

    /// The value of a hex digit (call only when `isHexDigit`).
    var hexValue: UInt8 {
        switch self {
        case 0x30...0x39: self - 0x30
        case 0x41...0x46: self - 0x41 + 10
        default: self - 0x61 + 10
        }
    }
}
