internal import SetteeJSON

/*
 The body's term straight from its JSON text, as `json(_:)` writes it from a parsed value,
 without building that value: the revision hash runs for every document written, and
 parsing into `JSONValue` (strings, arrays, dictionaries) was a fifth of `_bulk_docs`.
 A list's length comes before its elements in the term format, so each list is written
 with a placeholder count, patched when the list ends; an array found to hold only
 integers 0...255 is rewritten as the STRING_EXT `term_to_binary` makes of it.
 The text is JSON this process wrote or validated (a stored body): anything else is
 reported as nil, never trusted.
*/
extension ExternalTermEncoder {
    /// Appends the term of the JSON value in `text`; false when `text` is not one JSON value.
    mutating func json(text: [UInt8]) -> Bool {
        var reader = JSONTextReader(bytes: text)
        guard value(&reader) else { return false }
        reader.skipWhitespace()
        return reader.position == text.count
    }

    private mutating func value(_ reader: inout JSONTextReader) -> Bool {
        reader.skipWhitespace()
        guard let byte = reader.peek() else { return false }
        switch byte {
        case UInt8(ascii: "{"): return object(&reader)
        case UInt8(ascii: "["): return array(&reader)
        case UInt8(ascii: "\""): return string(&reader)
        case UInt8(ascii: "t"): return reader.literal("true") && { atom("true"); return true }()
        case UInt8(ascii: "f"): return reader.literal("false") && { atom("false"); return true }()
        case UInt8(ascii: "n"): return reader.literal("null") && { atom("null"); return true }()
        default:
            guard let (range, isInteger) = reader.number() else { return false }
            // Up to 18 digits fit Int64 whatever they are: no String needed.
            if isInteger, range.count <= 18 {
                var value: Int64 = 0
                var negative = false
                for byte in reader.bytes[range] {
                    if byte == UInt8(ascii: "-") { negative = true } else if byte != UInt8(ascii: "+") {
                        value = value * 10 + Int64(byte - 48)
                    }
                }
                integer(negative ? -value : value)
            } else {
                json(.number(JSONNumber(text: String(decoding: reader.bytes[range], as: UTF8.self))))
            }
            return true
        }
    }

    /// A string as a binary: its bytes straight from the text when it has no escape.
    private mutating func string(_ reader: inout JSONTextReader) -> Bool {
        if let plain = reader.plainString() {
            binary(reader.bytes[plain])
            return true
        }
        guard let decoded = reader.string() else { return false }
        binary(decoded)
        return true
    }

    private mutating func object(_ reader: inout JSONTextReader) -> Bool {
        reader.position += 1
        tupleHeader(arity: 1)
        let start = bytes.count
        var count = 0
        reader.skipWhitespace()
        if reader.peek() == UInt8(ascii: "}") {
            reader.position += 1
            emptyList()
            return true
        }
        openList()
        while true {
            reader.skipWhitespace()
            tupleHeader(arity: 2)
            guard reader.peek() == UInt8(ascii: "\""), string(&reader) else { return false }
            reader.skipWhitespace()
            guard reader.take(UInt8(ascii: ":")), value(&reader) else { return false }
            count += 1
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: ",")) { continue }
            guard reader.take(UInt8(ascii: "}")) else { return false }
            closeList(at: start, count: count)
            return true
        }
    }

    private mutating func array(_ reader: inout JSONTextReader) -> Bool {
        reader.position += 1
        let start = bytes.count
        reader.skipWhitespace()
        if reader.peek() == UInt8(ascii: "]") {
            reader.position += 1
            emptyList()
            return true
        }
        openList()
        var count = 0
        var allBytes = true
        while true {
            let elementStart = bytes.count
            guard value(&reader) else { return false }
            // SMALL_INTEGER_EXT (97, n) is what an integer 0...255 became.
            allBytes = allBytes && bytes.count - elementStart == 2 && bytes[elementStart] == 97
            count += 1
            reader.skipWhitespace()
            if reader.take(UInt8(ascii: ",")) { continue }
            guard reader.take(UInt8(ascii: "]")) else { return false }
            if allBytes, count <= 65_535 {
                // In place: [108, 4 count bytes, (97, n)...] becomes [107, 2 count bytes, n...].
                bytes[start] = 107
                bytes[start + 1] = UInt8(count >> 8)
                bytes[start + 2] = UInt8(count & 0xFF)
                for index in 0..<count { bytes[start + 3 + index] = bytes[start + 6 + 2 * index] }
                bytes.removeSubrange((start + 3 + count)...)
            } else {
                closeList(at: start, count: count)
            }
            return true
        }
    }

    private mutating func openList() { bytes.append(contentsOf: [108, 0, 0, 0, 0]) }

    private mutating func closeList(at start: Int, count: Int) {
        let length = UInt32(count)
        bytes[start + 1] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[start + 2] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[start + 3] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[start + 4] = UInt8(truncatingIfNeeded: length)
        emptyList()
    }
}
