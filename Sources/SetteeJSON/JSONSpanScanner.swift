/*
 Where the members of an object and the elements of an array sit in JSON text that
 `JSONReader` has already accepted, so a caller can copy a member's bytes instead of
 serializing its parsed value again.

 A member is *compact* when its text, from the key's opening quote to the value's last
 byte, is exactly what `JSONWriter` writes for the parsed key and value:
 - no white space outside strings (the writer writes none);
 - strings use no escape but `\"`, `\\`, `\n`, `\r`, `\t`, `\b` and `\f` (the writer
   writes `/` and non-ASCII as themselves and other control characters as lowercase
   `\u00xx`, so `\/`, `\u00e9` or `\u001F` would come back different);
 - numbers, `true`, `false` and `null` are written as their literal text by both.
 Valid UTF-8 passes through both unchanged, and nesting was bounded by the reader.

 The scanner trusts that the text is valid JSON, but never reads out of bounds: on
 anything unexpected it answers nil and the caller takes the parsed value instead.
 */

/// A member's bytes in the text: from its key's opening quote to the end of its value.
public struct JSONMemberSpan: Sendable, Hashable {
    public var range: Range<Int>
    /// Where the member's value starts.
    public var valueStart: Int
    /// Whether `range` is exactly what `JSONWriter` writes for the member.
    public var isCompact: Bool

    public init(range: Range<Int>, valueStart: Int, isCompact: Bool) {
        self.range = range
        self.valueStart = valueStart
        self.isCompact = isCompact
    }
}

/// Finds members and elements in JSON text that `JSONReader` accepted.
///
///     let spans = JSONSpanScanner.members(ofObjectIn: bytes)  // the root object's members
public struct JSONSpanScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    private var isCompact = true
    /// Arrays and objects nested deeper than this within a skipped value are refused.
    private var maxDepth = Int.max

    private init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) {
        self.bytes = bytes
        self.index = index
    }

    /// The members of the object starting at `start` (white space before it allowed),
    /// in order; nil if there is no object there.
    public static func members(ofObjectIn bytes: UnsafeBufferPointer<UInt8>, at start: Int = 0) -> [JSONMemberSpan]? {
        var scanner = JSONSpanScanner(bytes, at: start)
        return scanner.members()
    }

    /// For each element of the array starting at `start`: its members if it is an
    /// object, else nil. Nil if there is no array there.
    public static func elementMembers(ofArrayIn bytes: UnsafeBufferPointer<UInt8>, at start: Int)
        -> [[JSONMemberSpan]?]?
    {
        var scanner = JSONSpanScanner(bytes, at: start)
        return scanner.elementMembers()
    }

    /// `elementMembers` of the array that is the value of the root object's member
    /// number `position` (counting from 0, duplicates included), without scanning the
    /// rest of the text; nil if that member is not there or is not an array.
    public static func elementMembers(ofMember position: Int, ofObjectIn bytes: UnsafeBufferPointer<UInt8>)
        -> [[JSONMemberSpan]?]?
    {
        var scanner = JSONSpanScanner(bytes, at: 0)
        return scanner.elementMembers(ofMember: position)
    }

    /// The root object's members, and for the first member whose key is written exactly
    /// `"<key>"` (no escape) and whose value is an array, `elementMembers` of that array,
    /// found in the same pass (finding the members first walked the array once more).
    /// Nil if there is no object; `elements` nil if no such member.
    public static func members(ofObjectIn bytes: UnsafeBufferPointer<UInt8>, expanding key: String)
        -> (members: [JSONMemberSpan], elements: [[JSONMemberSpan]?]?)?
    {
        var scanner = JSONSpanScanner(bytes, at: 0)
        var elements: [[JSONMemberSpan]?]?
        let quoted = Array(("\"" + key + "\"").utf8)
        let members = scanner.members { scanner, keyRange in
            guard elements == nil, scanner.byte(scanner.index) == UInt8(ascii: "["),
                  UnsafeBufferPointer(rebasing: bytes[keyRange]).elementsEqual(quoted) else { return nil }
            elements = scanner.elementMembers()
            guard elements != nil else { return false }
            scanner.index += 1  // the array's `]`
            return true
        }
        guard let members else { return nil }
        return (members, elements)
    }

    /// The byte ranges of the two elements of the compact two-element array that is
    /// all of `bytes` (`[a,b]` as `JSONWriter` writes it: a view row's stored key and
    /// value, copied out instead of parsed and written again); nil for anything else.
    public static func compactPair(in bytes: UnsafeBufferPointer<UInt8>) -> (Range<Int>, Range<Int>)? {
        var scanner = JSONSpanScanner(bytes, at: 0)
        guard scanner.byte(0) == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        scanner.index = 1
        let firstStart = scanner.index
        guard scanner.skipValue(), scanner.byte(scanner.index) == UInt8(ascii: ",") else { return nil }
        let first = firstStart..<scanner.index
        scanner.index += 1
        let secondStart = scanner.index
        guard scanner.skipValue(), scanner.index == bytes.count - 1, scanner.isCompact else { return nil }
        return (first, secondStart..<scanner.index)
    }

    /// Where the value at `start` ends (one past its last byte), and whether its text is
    /// exactly what `JSONWriter` writes for it; nil on text the reader would not have
    /// accepted, or on arrays and objects nested more than `maxDepth` deep within it.
    public static func valueEnd(in bytes: UnsafeBufferPointer<UInt8>, at start: Int,
                                maxDepth: Int = .max) -> (end: Int, isCompact: Bool)? {
        var scanner = JSONSpanScanner(bytes, at: start)
        scanner.maxDepth = maxDepth
        guard scanner.skipValue() else { return nil }
        return (scanner.index, scanner.isCompact)
    }

    private func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    private mutating func skipWhitespace() {
        while true {
            switch byte(index) {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1; isCompact = false
            default: return
            }
        }
    }

    /// - Parameter expand: given the scanner at a member's value and the key's range
    ///   (quotes included), nil to skip the value as usual, or whether it moved past it.
    private mutating func members(
        expand: ((inout JSONSpanScanner, Range<Int>) -> Bool?)? = nil
    ) -> [JSONMemberSpan]? {
        skipWhitespace()
        guard byte(index) == UInt8(ascii: "{") else { return nil }
        index += 1
        var spans: [JSONMemberSpan] = []
        spans.reserveCapacity(8)  // one allocation for a small document instead of four
        skipWhitespace()
        if byte(index) == UInt8(ascii: "}") { index += 1; return spans }
        while true {
            skipWhitespace()
            let start = index
            isCompact = true
            guard byte(index) == UInt8(ascii: "\""), skipString() else { return nil }
            let keyRange = start..<index
            skipWhitespace()
            guard byte(index) == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            let valueStart = index
            if let expanded = expand?(&self, keyRange) {
                guard expanded else { return nil }
                isCompact = false
            } else {
                guard skipValue() else { return nil }
            }
            spans.append(JSONMemberSpan(range: start..<index, valueStart: valueStart, isCompact: isCompact))
            skipWhitespace()
            switch byte(index) {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return spans
            default: return nil
            }
        }
    }

    private mutating func elementMembers(ofMember position: Int) -> [[JSONMemberSpan]?]? {
        skipWhitespace()
        guard byte(index) == UInt8(ascii: "{") else { return nil }
        index += 1
        for _ in 0..<position {
            skipWhitespace()
            guard byte(index) == UInt8(ascii: "\""), skipString() else { return nil }
            skipWhitespace()
            guard byte(index) == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard skipValue() else { return nil }
            skipWhitespace()
            guard byte(index) == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        skipWhitespace()
        guard byte(index) == UInt8(ascii: "\""), skipString() else { return nil }
        skipWhitespace()
        guard byte(index) == UInt8(ascii: ":") else { return nil }
        index += 1
        return elementMembers()
    }

    private mutating func elementMembers() -> [[JSONMemberSpan]?]? {
        skipWhitespace()
        guard byte(index) == UInt8(ascii: "[") else { return nil }
        index += 1
        var elements: [[JSONMemberSpan]?] = []
        skipWhitespace()
        if byte(index) == UInt8(ascii: "]") { return elements }
        while true {
            skipWhitespace()
            if byte(index) == UInt8(ascii: "{") {
                guard let members = members() else { return nil }
                elements.append(members)
            } else {
                guard skipValue() else { return nil }
                elements.append(nil)
            }
            skipWhitespace()
            switch byte(index) {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): return elements
            default: return nil
            }
        }
    }

    /// Moves past one value; false on anything the reader would not have accepted.
    private mutating func skipValue() -> Bool {
        switch byte(index) {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["): return skipContainer()
        case UInt8(ascii: "t"), UInt8(ascii: "n"): index += 4
        case UInt8(ascii: "f"): index += 5
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            while true {
                switch byte(index) {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                     UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): index += 1
                default: return true
                }
            }
        default: return false
        }
        return index <= bytes.count
    }

    /// Moves past an object or array by counting brackets outside strings: its
    /// members need no spans of their own, only the compactness check.
    private mutating func skipContainer() -> Bool {
        var depth = 0
        while true {
            switch byte(index) {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth <= maxDepth else { return false }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
                if depth == 0 { return true }
            case UInt8(ascii: "\""): guard skipString() else { return false }
            case 0x20, 0x09, 0x0A, 0x0D: isCompact = false; index += 1
            case 0: return false
            default: index += 1
            }
        }
    }

    /// Moves past a string (at its opening quote), noting escapes the writer would
    /// not write the same way.
    private mutating func skipString() -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"):
                switch byte(index + 1) {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"),
                     UInt8(ascii: "t"), UInt8(ascii: "b"), UInt8(ascii: "f"): break
                default: isCompact = false
                }
                index += 2
            default:
                index += 1
            }
        }
        return false
    }
}
