internal import SetteeJSON

/*
 A cursor over JSON text that checks it exactly as `JSONReader` does, without building
 any value: RFC 8259's grammar, white space only as ` \t\n\r`, strings of valid UTF-8
 with no raw control character, escapes `\" \\ \/ \b \f \n \r \t \uXXXX` (a high
 surrogate only followed by an escaped low one, no lone low one), numbers
 `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, `true`, `false`, `null`, and
 nesting no deeper than `JSONReader.defaultMaxDepth` (a container at the root has depth 1).

 What it passes `JSONReader` parses, and what it refuses `JSONReader` refuses; callers
 that meet a refusal take `JSONReader`'s path all the same, so its errors stay the ones
 reported. `StrictJSONCursorTests` holds the two to the same answers.
 */

/// Moves through JSON text one token at a time, answering false (or nil) at the first
/// byte `JSONReader` would refuse. It never reads out of bounds.
struct StrictJSONCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    static let maxDepth = JSONReader.defaultMaxDepth

    init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// The byte at the cursor, or 0 past the end (0 starts no JSON token).
    var current: UInt8 { index < bytes.count ? bytes[index] : 0 }
    var isAtEnd: Bool { index >= bytes.count }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Moves past `byte` (after any white space); false when something else is there.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        index += 1
        return true
    }

    /// Moves past one value whose container has depth `depth` (0 for the root value).
    mutating func skipValue(depth: Int) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return skipObject(depth: depth + 1)
        case UInt8(ascii: "["): return skipArray(depth: depth + 1)
        case UInt8(ascii: "\""): return skipString() != nil
        case UInt8(ascii: "t"): return skipWord("true")
        case UInt8(ascii: "f"): return skipWord("false")
        case UInt8(ascii: "n"): return skipWord("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return skipNumber()
        default: return false
        }
    }

    /// Walks the members of the object at the cursor (depth `depth`), calling `member`
    /// with each key's text (between its quotes), whether the key has an escape, and the
    /// cursor before the value; `member` must move past the value.
    mutating func forEachMember(depth: Int,
                                _ member: (_ key: Range<Int>, _ keyHasEscape: Bool, inout StrictJSONCursor) -> Bool) -> Bool {
        guard depth <= Self.maxDepth, take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return true }
        while true {
            skipWhitespace()
            let keyStart = index + 1
            guard current == UInt8(ascii: "\""), let keyHasEscape = skipString() else { return false }
            let key = keyStart..<(index - 1)
            guard take(UInt8(ascii: ":")), member(key, keyHasEscape, &self) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return true
            default: return false
            }
        }
    }

    /// Walks the elements of the array at the cursor (depth `depth`); `element` must move past each.
    mutating func forEachElement(depth: Int, _ element: (inout StrictJSONCursor) -> Bool) -> Bool {
        guard depth <= Self.maxDepth, take(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return true }
        while true {
            guard element(&self) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return true
            default: return false
            }
        }
    }

    private mutating func skipObject(depth: Int) -> Bool {
        forEachMember(depth: depth) { _, _, cursor in cursor.skipValue(depth: depth) }
    }

    private mutating func skipArray(depth: Int) -> Bool {
        forEachElement(depth: depth) { cursor in cursor.skipValue(depth: depth) }
    }

    private mutating func skipWord(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
        index += count
        return true
    }

    private mutating func skipNumber() -> Bool {
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if skipDigits() == 0 {
            return false
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { return false }
        }
        if current | 0x20 == UInt8(ascii: "e") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { return false }
        }
        return true
    }

    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    /// Moves past the string at the cursor (its opening quote). - Returns: whether it
    /// holds an escape, or nil when `JSONReader` would refuse it.
    mutating func skipString() -> Bool? {
        index += 1
        var hasEscape = false
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return hasEscape
            case UInt8(ascii: "\\"):
                hasEscape = true
                guard skipEscape() else { return nil }
            case 0..<0x20:
                return nil
            case 0x80...:
                guard let length = Self.utf8SequenceLength(bytes, at: index) else { return nil }
                index += length
            default:
                index += 1
            }
        }
        return nil
    }

    /// An escape at the cursor's backslash, as `JSONReader.readEscape` takes it.
    private mutating func skipEscape() -> Bool {
        index += 1
        let c = current
        index += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index <= bytes.count
        case UInt8(ascii: "u"):
            guard let unit = hex4() else { return false }
            if (0xDC00..<0xE000).contains(unit) { return false }
            guard (0xD800..<0xDC00).contains(unit) else { return true }
            // A high surrogate must be followed by an escaped low surrogate.
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return false }
            index += 2
            guard let low = hex4() else { return false }
            return (0xDC00..<0xE000).contains(low)
        default:
            return false
        }
    }

    /// Four hexadecimal digits, read as `JSONReader` reads them (its `hexDigit`).
    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        let digits = (index..<(index + 4)).compactMap { JSONReader.hexDigit(bytes[$0]) }
        guard digits.count == 4 else { return nil }
        index += 4
        return digits.reduce(0) { $0 << 4 | UInt32($1) }
    }

    /// The length of the well-formed UTF-8 sequence of a scalar starting at `i` (a byte
    /// ≥ 0x80), or nil: the Unicode Standard's table 3-7, which `String(validating:)` keeps
    /// (no overlong forms, no surrogates, nothing past U+10FFFF).
    static func utf8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
        func byte(_ k: Int) -> UInt8 { i + k < bytes.count ? bytes[i + k] : 0 }
        func isContinuation(_ k: Int) -> Bool { byte(k) & 0xC0 == 0x80 }
        let lead = bytes[i]
        let second = byte(1)
        switch lead {
        case 0xC2...0xDF: return isContinuation(1) ? 2 : nil
        case 0xE0: return (0xA0...0xBF).contains(second) && isContinuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return isContinuation(1) && isContinuation(2) ? 3 : nil
        case 0xED: return (0x80...0x9F).contains(second) && isContinuation(2) ? 3 : nil
        case 0xF0: return (0x90...0xBF).contains(second) && isContinuation(2) && isContinuation(3) ? 4 : nil
        case 0xF1...0xF3: return isContinuation(1) && isContinuation(2) && isContinuation(3) ? 4 : nil
        case 0xF4: return (0x80...0x8F).contains(second) && isContinuation(2) && isContinuation(3) ? 4 : nil
        default: return nil
        }
    }
}
