
/// Reads the tokens of JSON text one at a time, for `ExternalTermEncoder.json(text:)`:
/// strings come out as their UTF-8 bytes with escapes decoded (RFC 8259 §7), numbers as
/// their text. It checks what it reads but is no validator: its input is JSON the store
/// already accepted.
struct JSONTextReader {
    let bytes: [UInt8]
    var position = 0

    func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { expected in bytes[position..<position + length].elementsEqual(expected) }
        if matches { position += length }
        return matches
    }

    /// The bytes of the string at `position` (its opening quote) when it holds no escape,
    /// with `position` past its closing quote; nil (and `position` unmoved) otherwise.
    mutating func plainString() -> Range<Int>? {
        var end = position + 1
        while end < bytes.count {
            switch bytes[end] {
            case UInt8(ascii: "\""):
                defer { position = end + 1 }
                return (position + 1)..<end
            case UInt8(ascii: "\\"): return nil
            default: end += 1
            }
        }
        return nil
    }

    /// The string at `position` (its opening quote), decoded.
    mutating func string() -> [UInt8]? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var out: [UInt8] = []
        while let byte = peek() {
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return out
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { return nil }
                position += 1
                switch escaped {
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out.append(contentsOf: String(Character(scalar)).utf8)
                default: out.append(escaped)  // \" \\ \/
                }
            default: out.append(byte)
            }
        }
        return nil
    }

    /// `\uXXXX` after its `\u`, a surrogate pair joined.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case 48...57: digit = byte - 48
            case 97...102: digit = byte - 87
            case 65...70: digit = byte - 55
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    /// The number at `position`: where its text is, and whether it is an integer (no `.`,
    /// `e` or `E`, as jiffy tells floats from integers).
    mutating func number() -> (Range<Int>, isInteger: Bool)? {
        let start = position
        var isInteger = true
        while let byte = peek() {
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isInteger = false
            } else if !(48...57).contains(byte) && byte != UInt8(ascii: "-") && byte != UInt8(ascii: "+") {
                break
            }
            position += 1
        }
        guard position > start else { return nil }
        return (start..<position, isInteger)
    }
}
