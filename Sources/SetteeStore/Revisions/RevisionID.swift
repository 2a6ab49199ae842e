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
    /// One pass over the buffer by index, not a generic walk of slices: the generic form
    /// was 5 % of a replication source's CPU (three ids a document: the `_changes` row,
    /// the `_bulk_get` item, the revision row read for it).
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        // A leading `+`, as `Int(_:)` took before and Erlang's `list_to_integer` takes.
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") { index += 1 }
        let digitsStart = index
        var generation = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "-") {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), generation < 1 << 40 else { return nil }
            generation = generation * 10 + Int(byte - UInt8(ascii: "0"))
            index += 1
        }
        guard index < bytes.count, index > digitsStart, generation >= 1, generation < 1 << 40,
              let suffix = Self.checkedSuffix(UnsafeBufferPointer(rebasing: bytes[(index + 1)...])) else { return nil }
        self.init(generation: generation, suffix: suffix)
    }

    /// The suffix as stored: not empty, and a 32-character one hex, lowercased.
    private static func checkedSuffix(_ rest: UnsafeBufferPointer<UInt8>) -> String? {
        guard !rest.isEmpty else { return nil }
        guard rest.count == 32 else { return String(decoding: rest, as: UTF8.self) }
        var hasUppercase = false
        for byte in rest {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F"): hasUppercase = true
            default: return nil
            }
        }
        let suffix = String(decoding: rest, as: UTF8.self)
        return hasUppercase ? suffix.lowercased() : suffix
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
