internal import SetteeJSON

/// Reads the tokens of JSON text one at a time, for `ExternalTermEncoder.json(text:)`:
/// strings come out as their UTF-8 bytes with escapes decoded (RFC 8259 §7), numbers as
/// where their text is. It checks what it reads but is no validator: its input is JSON the store
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

    /// The string at `position` (its opening quote), decoded by SetteeJSON's reader: only
    /// strings with escapes come here, and they are rare in stored bodies.
    mutating func string() -> [UInt8]? {
        var end = position + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end < bytes.count, case .string(let decoded)? = try? JSONReader.parse(Array(bytes[position...end])) else {
            return nil
        }
        position = end + 1
        return Array(decoded.utf8)
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
