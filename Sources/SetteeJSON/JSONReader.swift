/// Parses JSON text (RFC 8259) into a `JSONValue`.
///
/// Strict where CouchDB is strict: one value, optional white space around it,
/// valid UTF-8, no trailing commas, no comments. Nesting deeper than
/// `maxDepth` is refused (stack safety and a configurable limit, 400 in HTTP).
///
///     let value = try JSONReader.parse(Array(#"{"a":[1,true]}"#.utf8))
public struct JSONReader {
    /// Default bound on nesting of arrays and objects.
    public static let defaultMaxDepth = 512

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            try parse(buffer, maxDepth: maxDepth)
        }
    }

    public static func parse(_ string: String, maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONValue {
        try parse(Array(string.utf8), maxDepth: maxDepth)
    }

    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> JSONValue
    {
        try parseNotingDuplicateKeys(buffer, maxDepth: maxDepth).value
    }

    /// `parse`, and whether some object in the text repeated a key (only its last member
    /// was kept, as CouchDB keeps it: `JSONObject+DuplicateKeys`). Then the text is not
    /// what the value writes, and a caller copying members from it must not.
    public static func parseNotingDuplicateKeys(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> (value: JSONValue, hadDuplicateKeys: Bool)
    {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> (value: JSONValue, hadDuplicateKeys: Bool) in
            try parseNotingDuplicateKeys(buffer, maxDepth: maxDepth)
        }
    }

    public static func parseNotingDuplicateKeys(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> (value: JSONValue, hadDuplicateKeys: Bool)
    {
        var reader = JSONReader(bytes: buffer, maxDepth: maxDepth)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        guard reader.index == buffer.count else { throw JSONError(.trailingBytes, at: reader.index) }
        return (value, reader.hadDuplicateKeys)
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    /// Whether an object read so far repeated a key.
    private var hadDuplicateKeys = false

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONError) -> UInt8 {
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        return bytes[index]
    }

    private mutating func readValue(depth: Int) throws(JSONError) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        case let other: throw JSONError(.unexpectedByte(other), at: index)
        }
    }

    private mutating func expect(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw JSONError(.unexpectedEnd, at: bytes.count) }
        let start = word.utf8Start
        for i in 0..<count where bytes[index + i] != start[i] {
            throw JSONError(.unexpectedByte(bytes[index + i]), at: index + i)
        }
        index += count
    }

    private mutating func readObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw JSONError(.tooDeep(limit: maxDepth), at: index) }
        index += 1
        var members: [JSONObject.Member] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(members: members))
        }
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(bytes[index]), at: index) }
            let key = try readString()
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw JSONError(.unexpectedByte(bytes[index]), at: index) }
            index += 1
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try readValue(depth: depth)))
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return object(members)
            case let other: throw JSONError(.unexpectedByte(other), at: index)
            }
        }
    }

    /// The object of `members`, a repeated key's last member kept (CouchDB's rule).
    private mutating func object(_ members: [JSONObject.Member]) -> JSONValue {
        guard JSONObject.hasDuplicateKeys(members) else { return .object(JSONObject(members: members)) }
        hadDuplicateKeys = true
        return .object(JSONObject(members: JSONObject.keepingLastOfEachKey(members)))
    }

    private mutating func readArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw JSONError(.tooDeep(limit: maxDepth), at: index) }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue(depth: depth))
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            case let other: throw JSONError(.unexpectedByte(other), at: index)
            }
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func readNumber() throws(JSONError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw JSONError(.invalidNumber, at: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard try digits() > 0 else { throw JSONError(.invalidNumber, at: index) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard try digits() > 0 else { throw JSONError(.invalidNumber, at: index) }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard try digits() > 0 else { throw JSONError(.invalidNumber, at: index) }
        }
        return JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private mutating func digits() throws(JSONError) -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    private mutating func readString() throws(JSONError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, ASCII or valid UTF-8, taken as one slice.
        var sawEscape = false
        var sawNonASCII = false
        while true {
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") { sawEscape = true; break }
            if b < 0x20 { throw JSONError(.unexpectedByte(b), at: index) }
            if b >= 0x80 { sawNonASCII = true }
            index += 1
        }
        if !sawEscape {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
            index += 1
            if sawNonASCII { return try validatedString(slice, at: start) }
            return String(decoding: slice, as: UTF8.self)
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return try validatedString(out, at: start)
            case UInt8(ascii: "\\"):
                try readEscape(into: &out)
            case 0..<0x20:
                throw JSONError(.unexpectedByte(b), at: index)
            default:
                out.append(b)
                index += 1
            }
        }
    }

    private func validatedString(_ bytes: some Collection<UInt8>, at offset: Int) throws(JSONError) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else { throw JSONError(.invalidUTF8, at: offset) }
        return s
    }

    private mutating func readEscape(into out: inout [UInt8]) throws(JSONError) {
        index += 1
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONError(.invalidEscape, at: index) }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw JSONError(.invalidEscape, at: index) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw JSONError(.invalidEscape, at: index)
            }
            guard let u = Unicode.Scalar(scalar) else { throw JSONError(.invalidEscape, at: index) }
            out.append(contentsOf: String(Character(u)).utf8)
        default:
            throw JSONError(.invalidEscape, at: index - 1)
        }
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexDigit(bytes[index]) else { throw JSONError(.invalidEscape, at: index) }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// The value of a hexadecimal digit of a `\uXXXX` escape (`0-9`, `a-f`, `A-F`), or nil.
    public static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
