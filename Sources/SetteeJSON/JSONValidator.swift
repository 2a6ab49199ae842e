/*
 Whether bytes are JSON text that `JSONReader` accepts, without building the value.

 The grammar is the reader's, rule for rule (RFC 8259, strict as CouchDB is): one value
 with optional white space around it; strings with no raw control characters, only the
 escapes §7 names, a `\u` high surrogate only when an escaped low one follows and no lone
 low one, valid UTF-8 (RFC 3629: no overlong forms, no encoded surrogates, nothing past
 U+10FFFF — what `String(validating:)` refuses); numbers as §6 writes them; `true`,
 `false`, `null`; objects and arrays nested at most `maxDepth` deep, counted as the reader
 counts them. A text this accepts, the reader parses, and the other way round
 (JSONValidatorTests compares the two on generated and broken texts).

 It is for callers that only need the bytes to be valid before they take values out of
 spans (`JSONSpanScanner`): `_bulk_docs` with `new_edits:false` stores each body from its
 span, and building the whole request's value tree first was 8 % of its CPU.
 */

/// Checks JSON text as `JSONReader` would, allocating nothing (but one array of key
/// ranges for `isValidWithDistinctKeys`).
///
///     JSONValidator.isValid(bytes, maxDepth: 512)  // true when JSONReader.parse would succeed
public struct JSONValidator {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    /// With `isValidWithDistinctKeys`: the keys (quotes included) of the objects open, innermost last.
    private var openKeys: [Range<Int>]?

    private init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Whether `isValid`, and no object in the text may repeat a key, so that the reader
    /// drops no member (`JSONObject+DuplicateKeys`) and members can be copied from the text.
    /// Cautious: false also when a key has an escape (`"a"` and `"\u0061"` are one key)
    /// or an object has more than `distinctKeyLimit` members; the caller parses the value then.
    public static func isValidWithDistinctKeys(_ bytes: UnsafeBufferPointer<UInt8>,
                                               maxDepth: Int = JSONReader.defaultMaxDepth) -> Bool {
        var validator = JSONValidator(bytes, maxDepth: maxDepth)
        validator.openKeys = []
        validator.openKeys?.reserveCapacity(32)
        validator.skipWhitespace()
        guard validator.value(depth: 0) else { return false }
        validator.skipWhitespace()
        return validator.index == bytes.count
    }

    /// Past this many members in one object `isValidWithDistinctKeys` gives up (pairwise compares).
    static let distinctKeyLimit = 64

    /// Whether `JSONReader.parse(bytes, maxDepth:)` would return a value.
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONReader.defaultMaxDepth) -> Bool {
        var validator = JSONValidator(bytes, maxDepth: maxDepth)
        validator.skipWhitespace()
        guard validator.value(depth: 0) else { return false }
        validator.skipWhitespace()
        return validator.index == bytes.count
    }

    public static func isValid(_ bytes: [UInt8], maxDepth: Int = JSONReader.defaultMaxDepth) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0, maxDepth: maxDepth) }
    }

    private func byte(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipWhitespace() {
        while let b = byte(index), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
    }

    private mutating func value(depth: Int) -> Bool {
        guard let first = byte(index) else { return false }
        switch first {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
        index += count
        return true
    }

    private mutating func object(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        index += 1
        skipWhitespace()
        if byte(index) == UInt8(ascii: "}") { index += 1; return true }
        let firstKey = openKeys?.count ?? 0
        defer { openKeys?.removeSubrange(firstKey...) }
        while true {
            skipWhitespace()
            let keyStart = index
            guard byte(index) == UInt8(ascii: "\""), string() else { return false }
            if openKeys != nil, !isNewKey(keyStart..<index, after: firstKey) { return false }
            skipWhitespace()
            guard byte(index) == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch byte(index) {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return true
            default: return false
            }
        }
    }

    /// Whether the key at `key` is plain and unlike the keys of its object before it (from
    /// `openKeys[first]`); records it.
    private mutating func isNewKey(_ key: Range<Int>, after first: Int) -> Bool {
        guard var keys = openKeys, keys.count - first < Self.distinctKeyLimit,
              !bytes[key].contains(UInt8(ascii: "\\")) else { return false }
        openKeys = nil  // `keys` is the only reference while it grows: no copy
        defer { openKeys = keys }
        let text = bytes[key]
        for earlier in keys[first...] where earlier.count == key.count && bytes[earlier].elementsEqual(text) {
            return false
        }
        keys.append(key)
        return true
    }

    private mutating func array(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        index += 1
        skipWhitespace()
        if byte(index) == UInt8(ascii: "]") { index += 1; return true }
        while true {
            skipWhitespace()
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch byte(index) {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return true
            default: return false
            }
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() -> Bool {
        if byte(index) == UInt8(ascii: "-") { index += 1 }
        if byte(index) == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { return false }
        }
        if byte(index) == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if let b = byte(index), b | 0x20 == UInt8(ascii: "e") {
            index += 1
            if byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    private mutating func digits() -> Int {
        let start = index
        while let b = byte(index), b &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    /// A string at its opening quote: escapes as the reader decodes them, raw bytes valid UTF-8.
    private mutating func string() -> Bool {
        index += 1
        while let b = byte(index) {
            switch b {
            case UInt8(ascii: "\""): index += 1; return true
            case UInt8(ascii: "\\"): guard escape() else { return false }
            case 0..<0x20: return false
            case 0x20..<0x80: index += 1
            default: guard utf8Sequence() else { return false }
            }
        }
        return false
    }

    private mutating func escape() -> Bool {
        index += 1
        guard let c = byte(index) else { return false }
        index += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        case UInt8(ascii: "u"):
            guard let scalar = hex4() else { return false }
            if (0xDC00..<0xE000).contains(scalar) { return false }
            guard (0xD800..<0xDC00).contains(scalar) else { return true }
            // A high surrogate must be followed by an escaped low surrogate.
            guard byte(index) == UInt8(ascii: "\\"), byte(index + 1) == UInt8(ascii: "u") else { return false }
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
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONReader.hexDigit(bytes[index]) else { return nil }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// One multi-byte UTF-8 sequence at a byte ≥ 0x80 (RFC 3629 §4, the table of
    /// well-formed sequences: second-byte ranges exclude overlongs, surrogates and > U+10FFFF).
    private mutating func utf8Sequence() -> Bool {
        let lead = bytes[index]
        let count: Int
        var secondLow: UInt8 = 0x80, secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; secondHigh = 0x9F
        case 0xF0: count = 4; secondLow = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; secondHigh = 0x8F
        default: return false
        }
        guard let second = byte(index + 1), (secondLow...secondHigh).contains(second) else { return false }
        for i in 2..<count {
            guard let b = byte(index + i), b & 0xC0 == 0x80 else { return false }
        }
        index += count
        return true
    }
}
