internal import SetteeJSON

/*
 Erlang's external term format (erts "External Term Format"), as much of it as
 `term_to_binary(Term, [{minor_version, 1}])` writes for the terms CouchDB hashes into
 a revision id (couch_db:new_revid/1): atoms, integers, floats, binaries, tuples and
 lists, with a document body as jiffy decodes it —

   JSON object  {[{Key, Value}, ...]}   a 1-tuple holding a list of 2-tuples, in the
                                        members' written order
   JSON array   [Value, ...]            a list ([] is NIL_EXT)
   string       <<"...">>               a binary of its UTF-8
   integer      integer                 written without `.`, `e` or `E`: any size
   other number float                   a 64-bit IEEE double
   true/false/null                      atoms

 A list of integers 0...255 (at most 65,535 of them) is a string to Erlang: STRING_EXT.

 Tags: 131 version; 97 small integer (0...255); 98 integer (32-bit signed, big-endian);
 110 small big (byte count, sign, little-endian magnitude); 70 new float (big-endian
 IEEE); 100 atom (16-bit length, Latin-1, minor version 1); 109 binary (32-bit length);
 104 small tuple (arity); 107 string (16-bit length, bytes); 108 list (32-bit length,
 elements, tail); 106 nil.
*/

/// Writes terms in Erlang's external term format.
struct ExternalTermEncoder {
    var bytes: [UInt8] = [131]

    mutating func atom(_ name: String) {
        bytes.append(100)
        appendUInt16(UInt16(name.utf8.count))
        bytes.append(contentsOf: name.utf8)
    }

    mutating func boolean(_ value: Bool) { atom(value ? "true" : "false") }

    mutating func integer(_ value: Int64) {
        if (0...255).contains(value) {
            bytes.append(97)
            bytes.append(UInt8(value))
        } else if let small = Int32(exactly: value) {
            bytes.append(98)
            appendUInt32(UInt32(bitPattern: small))
        } else {
            big(magnitude: Self.littleEndianBytes(of: value.magnitude), isNegative: value < 0)
        }
    }

    mutating func binary(_ data: some Collection<UInt8>) {
        bytes.append(109)
        appendUInt32(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func tupleHeader(arity: Int) {
        bytes.append(104)
        bytes.append(UInt8(arity))
    }

    /// A list of `count` elements, which `writeElements` writes; then its nil tail.
    mutating func list(count: Int, _ writeElements: (inout ExternalTermEncoder) -> Void) {
        guard count > 0 else { return emptyList() }
        bytes.append(108)
        appendUInt32(UInt32(count))
        writeElements(&self)
        emptyList()
    }

    mutating func emptyList() { bytes.append(106) }

    /// STRING_EXT: what `term_to_binary` writes for a list of bytes.
    private mutating func byteList(_ values: [UInt8]) {
        bytes.append(107)
        appendUInt16(UInt16(values.count))
        bytes.append(contentsOf: values)
    }

    /// The array as bytes when every element is an integer 0...255 written as one (jiffy
    /// decodes those to Erlang integers), and there are 1...65,535 of them.
    private static func byteString(_ elements: [JSONValue]) -> [UInt8]? {
        guard !elements.isEmpty, elements.count <= 65_535 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(elements.count)
        for element in elements {
            guard case .number(let n) = element, !n.text.utf8.contains(where: { $0 == 46 || $0 == 101 || $0 == 69 }),
                  let value = n.int, (0...255).contains(value) else { return nil }
            out.append(UInt8(value))
        }
        return out
    }

    /// A JSON value as jiffy decodes it.
    mutating func json(_ value: JSONValue) {
        switch value {
        case .null: atom("null")
        case .bool(let b): boolean(b)
        case .string(let s): binary(s.utf8)
        case .number(let n): number(n)
        case .array(let elements):
            if let bytes = Self.byteString(elements) {
                byteList(bytes)
            } else {
                list(count: elements.count) { for e in elements { $0.json(e) } }
            }
        case .object(let object):
            tupleHeader(arity: 1)
            list(count: object.count) { encoder in
                for member in object {
                    encoder.tupleHeader(arity: 2)
                    encoder.binary(member.key.utf8)
                    encoder.json(member.value)
                }
            }
        }
    }

    /// jiffy reads a number with `.`, `e` or `E` as a float, any other as an integer.
    private mutating func number(_ number: JSONNumber) {
        let text = number.text
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        else {
            bytes.append(70)
            let bits = number.double.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            return
        }
        if let value = Int64(text) { return integer(value) }
        let isNegative = text.hasPrefix("-")
        big(magnitude: Self.littleEndianBytes(ofDecimal: text.utf8.filter { (48...57).contains($0) }), isNegative: isNegative)
    }

    private mutating func big(magnitude: [UInt8], isNegative: Bool) {
        bytes.append(110)
        bytes.append(UInt8(magnitude.count))
        bytes.append(isNegative ? 1 : 0)
        bytes.append(contentsOf: magnitude)
    }

    private mutating func appendUInt16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    private mutating func appendUInt32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func littleEndianBytes(of value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var rest = value
        while rest > 0 {
            out.append(UInt8(rest & 0xFF))
            rest >>= 8
        }
        return out
    }

    /// The magnitude of decimal `digits` (ASCII), least significant byte first: the
    /// digits are divided by 256 again and again (schoolbook, for the rare integer
    /// past 64 bits).
    static func littleEndianBytes(ofDecimal digits: [UInt8]) -> [UInt8] {
        var decimal = digits.map { Int($0) - 48 }
        var out: [UInt8] = []
        while decimal.contains(where: { $0 != 0 }) {
            var remainder = 0
            var quotient: [Int] = []
            for digit in decimal {
                let current = remainder * 10 + digit
                let q = current / 256
                remainder = current % 256
                if !quotient.isEmpty || q != 0 { quotient.append(q) }
            }
            out.append(UInt8(remainder))
            decimal = quotient
        }
        return out
    }
}
