/*
 Index keys as bytes whose memcmp order is CouchDB's collation (JSONCollation), so
 SQLite's b-tree on a BLOB column sorts and ranges them as a view would.

 Each value begins with a type tag in collation order (null 1, false 2, true 3,
 number 4, string 5, array 6, object 7), then:
 - number: its double's bits, sign-flipped so that bytes compare as values do
   (integers past 2^53 share a key with their nearest double; the selector is
   checked again on every document read, so only their order among equals suffers);
 - string: UTF-8 (whose byte order is code point order) with 0x00 written 0x00 0x01,
   then 0x00 0x00;
 - array: each element, then 0x00 (below every tag: shorter arrays first);
 - object: per member 0x01, the key as a string without tag, the value; then 0x00.
 No encoding is a prefix of another, and none starts or continues with 0xFF where a
 tag could stand, so "every key that begins with the encoding of v" is the range
 [enc(v), enc(v) + 0xFF): `IndexKeyEncoding.upperBound`.
*/

/// Order-preserving byte encoding of JSON values for index keys.
public enum IndexKeyEncoding {
    /// Appends `value`'s encoding to `out`.
    public static func append(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(1)
        case .bool(let b): out.append(b ? 3 : 2)
        case .number(let n):
            out.append(4)
            appendNumber(n, to: &out)
        case .string(let s):
            out.append(5)
            appendString(s, to: &out)
        case .array(let elements):
            out.append(6)
            for element in elements { append(element, to: &out) }
            out.append(0)
        case .object(let object):
            out.append(7)
            for member in object {
                out.append(1)
                appendString(member.key, to: &out)
                append(member.value, to: &out)
            }
            out.append(0)
        }
    }

    /// `value` alone, encoded.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    /// The end of the range of keys that begin with `prefix`: `prefix` + 0xFF.
    public static func upperBound(_ prefix: [UInt8]) -> [UInt8] { prefix + [0xFF] }

    /// A string's bytes without its terminator: every string starting with
    /// `prefix` encodes to something that starts with this (`$beginsWith`).
    static func stringPrefix(_ prefix: String) -> [UInt8] {
        var out: [UInt8] = [5]
        appendString(prefix, to: &out)
        out.removeLast(2)
        return out
    }

    private static func appendNumber(_ number: JSONNumber, to out: inout [UInt8]) {
        var double = number.int.map(Double.init) ?? number.double
        if double == 0 { double = 0 }  // -0.0 collates equal to 0
        let bits = double.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    private static func appendString(_ string: String, to out: inout [UInt8]) {
        for byte in string.utf8 {
            out.append(byte)
            if byte == 0 { out.append(1) }
        }
        out.append(0)
        out.append(0)
    }
}
