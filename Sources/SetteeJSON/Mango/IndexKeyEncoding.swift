/*
 Index keys as bytes whose memcmp order is CouchDB's collation (JSONCollation), so
 SQLite's b-tree on a BLOB column sorts and ranges them as a view would.

 Each value begins with a type tag in collation order, then:
 - number: its double's bits, sign-flipped so that bytes compare as values do
   (integers past 2^53 share a key with their nearest double; the selector is
   checked again on every document read, so only their order among equals suffers);
 - string: in CouchDB's default collation, ICU's sort key (`UnicodeCollator`), which
   ends with its only 0x00; in raw collation, UTF-8 (whose byte order is code point
   order) with 0x00 written 0x00 0x01, then 0x00 0x00;
 - array: each element, then 0x00 (below every tag: shorter arrays first);
 - object: per member 0x01, the key as a string without tag, the value; then 0x00.
 The default collation's tags are null 1, false 2, true 3, number 4, string 5, array 6,
 object 7 (docs.couchdb.org "Views Collation"); raw collation's (a view's
 `"options": {"collation": "raw"}`) are Erlang's term order, which CouchDB then uses:
 number 1, false 2, null 3, true 4 (atoms by name), object 5, array 6, string 7.
 No encoding is a prefix of another, and none starts or continues with 0xFF where a
 tag could stand, so "every key that begins with the encoding of v" is the range
 [enc(v), enc(v) + 0xFF): `IndexKeyEncoding.upperBound`.
*/

/// How strings (and the order of types) collate in an index: CouchDB's default
/// (ICU) or a view's `raw` collation.
public enum KeyCollation: String, Sendable, Hashable {
    case unicode
    case raw
}

/// Order-preserving byte encoding of JSON values for index keys.
public enum IndexKeyEncoding {
    /// Appends `value`'s encoding in `collation` to `out`.
    public static func append(_ value: JSONValue, to out: inout [UInt8], collation: KeyCollation = .unicode) {
        let raw = collation == .raw
        switch value {
        case .null: out.append(raw ? 3 : 1)
        case .bool(let b): out.append(b ? (raw ? 4 : 3) : 2)
        case .number(let n):
            out.append(raw ? 1 : 4)
            appendNumber(n, to: &out)
        case .string(let s):
            out.append(raw ? 7 : 5)
            appendString(s, to: &out, collation: collation)
        case .array(let elements):
            out.append(6)
            for element in elements { append(element, to: &out, collation: collation) }
            out.append(0)
        case .object(let object):
            out.append(raw ? 5 : 7)
            for member in object {
                out.append(1)
                appendString(member.key, to: &out, collation: collation)
                append(member.value, to: &out, collation: collation)
            }
            out.append(0)
        }
    }

    /// `value` alone, encoded.
    public static func encode(_ value: JSONValue, collation: KeyCollation = .unicode) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out, collation: collation)
        return out
    }

    /// `id` as the raw string that ends every index key: a document id orders rows
    /// with equal keys by its bytes, as CouchDB's `less_json_ids` compares ids.
    public static func appendDocumentID(_ id: String, to out: inout [UInt8]) {
        out.append(5)
        appendString(id, to: &out, collation: .raw)
    }

    /// The end of the range of keys that begin with `prefix`: `prefix` + 0xFF.
    public static func upperBound(_ prefix: [UInt8]) -> [UInt8] { prefix + [0xFF] }


    private static func appendNumber(_ number: JSONNumber, to out: inout [UInt8]) {
        var double = number.int.map(Double.init) ?? number.double
        if double == 0 { double = 0 }  // -0.0 collates equal to 0
        let bits = double.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    private static func appendString(_ string: String, to out: inout [UInt8], collation: KeyCollation) {
        guard collation == .raw else {
            UnicodeCollator.appendSortKey(string, to: &out)
            return
        }
        for byte in string.utf8 {
            out.append(byte)
            if byte == 0 { out.append(1) }
        }
        out.append(0)
        out.append(0)
    }
}
