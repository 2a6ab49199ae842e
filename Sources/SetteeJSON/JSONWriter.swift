/// Serializes `JSONValue`s compactly, as CouchDB does: no white space, `/` not
/// escaped, non-ASCII written as UTF-8, control characters as `\uXXXX` (or the
/// short escapes), numbers as their literal text.
///
///     var out: [UInt8] = []
///     JSONWriter.write(["ok": true], to: &out)   // {"ok":true}
public enum JSONWriter {
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(value, to: &out)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: serialize(value), as: UTF8.self)
    }

    public static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            writeObject(object, to: &out)
        }
    }

    public static func writeObject(_ object: JSONObject, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, member) in object.members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeString(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            write(member.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `s` as a quoted JSON string.
    ///
    /// Runs of bytes that need no escape are copied in one append: most strings
    /// (ids, revs, field names) have none, and appending byte by byte was the
    /// largest cost of serializing a `_bulk_docs` batch.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        writeEscaped(s, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Writes what goes between the quotes of `s` as a JSON string, so a caller can
    /// write a string in parts (`"` `1` `-` `abc` `"`) without joining them first.
    public static func writeEscaped(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices where bytes[index] < 0x20 || bytes[index] == 0x22 || bytes[index] == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                writeEscape(bytes[index], to: &out)
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    private static func writeEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(0x5C)
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(b)
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        default:
            out.append(contentsOf: "u00".utf8)
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0xF)])
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String { JSONWriter.string(self) }
}
