public import SetteeJSON

/*
 The answer of a map call, read from the engine's JSON text row by row: per document,
 per function, `null` where the function threw, else the array of its `[key, value]`
 rows (`__mapDocs`). An index stores each row's key encoded for collation and the
 row as `JSONWriter` writes it; parsing the whole answer into a value tree and writing
 every row again cost a build as much as the engine's own parse of the documents.

 JSON.stringify writes what `JSONWriter` writes (no white space, the short escapes,
 numbers as their literal text, non-ASCII as itself) except `\u` escapes (control
 characters and lone surrogates). So a row whose text has none of those, the
 *compact* row, is stored as its text, and only its key is parsed; any other row is
 parsed and written again as before. Either way the stored bytes are the same.

 The text comes from JSON.stringify, but the reader never reads out of bounds: on
 anything it does not expect it throws, as the whole answer's parse did, and a row
 nested deeper than the reader's limit throws too (the limit counted from the answer's
 root, as when the whole answer was parsed).
*/

/// What one map call over a batch of documents emitted (`JavaScriptEngine.map(_:documents:)`).
public struct MapAnswer: Sendable {
    /// One emitted row: its key, `[key, value]` as `JSONWriter` writes it, and its place
    /// among the rows of its slot (counting any that were left out).
    public struct Row: Sendable {
        public let key: JSONValue
        public let pair: [UInt8]
        public let place: Int

        public init(key: JSONValue, pair: [UInt8], place: Int) {
            self.key = key
            self.pair = pair
            self.place = place
        }
    }

    /// The engine's answer, as JSON text.
    public let text: [UInt8]
    /// Functions called on each document; documents in the batch.
    public let functions: Int
    public let documents: Int

    /// The rows of each document and function: slot `document * functions + function`,
    /// nil where the function threw for the document (CouchDB indexes nothing for it).
    /// Rows that are not two-element arrays are left out (`emit` makes none).
    /// - Throws: `JavaScriptError` when the text is not the answer `__mapDocs` writes.
    public func slots() throws(JavaScriptError) -> [[Row]?] {
        try text.withUnsafeBufferPointer { buffer throws(JavaScriptError) in
            var reader = MapAnswerReader(buffer)
            return try reader.slots()
        }
    }
}

/// Walks the answer's text: the slots' arrays, each row's key and value.
struct MapAnswerReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Whether the value just skipped is what `JSONWriter` would write for it.
    private var isCompact = true

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static let notJSON = JavaScriptError(message: "emitted something that is not JSON")

    private func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    /// Moves past `byte`, or throws.
    private mutating func expect(_ expected: UInt8) throws(JavaScriptError) {
        guard byte(index) == expected else { throw Self.notJSON }
        index += 1
    }

    mutating func slots() throws(JavaScriptError) -> [[MapAnswer.Row]?] {
        var slots: [[MapAnswer.Row]?] = []
        try expect(UInt8(ascii: "["))
        if byte(index) == UInt8(ascii: "]") { return slots }
        while true {
            if byte(index) == UInt8(ascii: "n") {
                try expectNull()
                slots.append(nil)
            } else {
                slots.append(try rows())
            }
            if byte(index) == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "]"))
            return slots
        }
    }

    private mutating func expectNull() throws(JavaScriptError) {
        guard index + 4 <= bytes.count, bytes[index + 1] == UInt8(ascii: "u"), bytes[index + 2] == UInt8(ascii: "l"),
              bytes[index + 3] == UInt8(ascii: "l") else { throw Self.notJSON }
        index += 4
    }

    /// One slot's array of rows (depth 2 of the answer).
    private mutating func rows() throws(JavaScriptError) -> [MapAnswer.Row] {
        var rows: [MapAnswer.Row] = []
        try expect(UInt8(ascii: "["))
        if byte(index) == UInt8(ascii: "]") { index += 1; return rows }
        var place = 0
        while true {
            if let row = try row(place) { rows.append(row) }
            place += 1
            if byte(index) == UInt8(ascii: ",") { index += 1; continue }
            try expect(UInt8(ascii: "]"))
            return rows
        }
    }

    /// One row (depth 3): `[key,value]` kept as its text when compact, else parsed and
    /// written again; nil when it is not a two-element array.
    private mutating func row(_ place: Int) throws(JavaScriptError) -> MapAnswer.Row? {
        let start = index
        isCompact = true
        if byte(index) == UInt8(ascii: "[") {
            index += 1
            let keyStart = index
            try skipValue(depth: 3)
            let keyEnd = index
            if byte(index) == UInt8(ascii: ",") {
                index += 1
                try skipValue(depth: 3)
                if isCompact, byte(index) == UInt8(ascii: "]") {
                    index += 1
                    return MapAnswer.Row(key: try key(keyStart..<keyEnd), pair: Array(UnsafeBufferPointer(rebasing: bytes[start..<index])),
                                        place: place)
                }
            }
            index = start
        }
        try skipValue(depth: 2)
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        let value: JSONValue
        do { value = try JSONReader.parse(text, maxDepth: JSONReader.defaultMaxDepth - 2) } catch { throw Self.notJSON }
        guard case .array(let pair) = value, pair.count == 2 else { return nil }
        return MapAnswer.Row(key: pair[0], pair: JSONWriter.serialize(value), place: place)
    }

    /// A compact key's value: scalars read directly, anything else by the reader.
    private func key(_ range: Range<Int>) throws(JavaScriptError) -> JSONValue {
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        switch text.first ?? 0 {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(JSONNumber(text: String(decoding: text, as: UTF8.self)))
        case UInt8(ascii: "\"") where !text.contains(UInt8(ascii: "\\")):
            return .string(String(decoding: UnsafeBufferPointer(rebasing: text.dropFirst().dropLast()), as: UTF8.self))
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        default:
            do { return try JSONReader.parse(text, maxDepth: JSONReader.defaultMaxDepth - 3) } catch { throw Self.notJSON }
        }
    }

    /// Moves past one value that starts at nesting `depth` of the answer, noting whether
    /// it is compact (`JSONSpanScanner.valueEnd`, the scanner that finds members' spans).
    /// - Throws: on text the engine would not write, or nesting past the reader's limit
    ///   (the whole answer's parse refused such text).
    private mutating func skipValue(depth: Int) throws(JavaScriptError) {
        guard let (end, compact) = JSONSpanScanner.valueEnd(
            in: bytes, at: index, maxDepth: JSONReader.defaultMaxDepth - depth) else { throw Self.notJSON }
        index = end
        if !compact { isCompact = false }
    }
}
