import SetteeJSON
import Testing

/// `JSONValidator` must accept exactly what `JSONReader` parses: hand-written cases for
/// each rule, then generated texts and every one-byte change of them.
@Suite struct JSONValidatorTests {
    private func agrees(_ bytes: [UInt8], maxDepth: Int = JSONReader.defaultMaxDepth) -> Bool {
        let parses = (try? JSONReader.parse(bytes, maxDepth: maxDepth)) != nil
        return JSONValidator.isValid(bytes, maxDepth: maxDepth) == parses
    }

    @Test(arguments: [
        "{}", "[]", " {\"a\" : [1, -0, 0.5, 1e5, 1E+5, -2.5e-3, true, false, null]} ", "\"s\"", "0", "-1", "1.0e0",
        #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u001F\u0000""#, #""\ud83d\ude00""#, "\"é😀\u{301}\"", "[[[[]]]]",
        #"{"a":1,"a":2}"#, "\r\n\t[ ]\n",
    ])
    func acceptsWhatTheReaderAccepts(text: String) {
        #expect(JSONValidator.isValid(Array(text.utf8)))
        #expect(agrees(Array(text.utf8)), "\(text)")
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "01", "-", "1.", ".5", "1e", "1e+",
        "+1", "tru", "nul", "falsey", "[true false]", "\"abc", #""\x""#, #""\u12""#, #""\u12g4""#, #""\ud83d""#,
        #""\ud83d\u0041""#, #""\ude00""#, #""\ud83dx""#, "\"a\u{1}b\"", "\"\t\"", "{} {}", "[] x", "[1]]",
        "{\"a\":1}}", "//", "NaN", "[Infinity]", "'s'",
    ])
    func refusesWhatTheReaderRefuses(text: String) {
        #expect(!JSONValidator.isValid(Array(text.utf8)), "\(text)")
        #expect(agrees(Array(text.utf8)), "\(text)")
    }

    /// RFC 3629's table: overlong forms, encoded surrogates, past U+10FFFF, lone and
    /// missing continuation bytes are refused, as `String(validating:)` refuses them.
    @Test(arguments: [
        [0xC3, 0xA9], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80],
        [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
        [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xBF], [0xC3],
        [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFE], [0xFF], [0xC3, 0x41], [0xE2, 0x28, 0xA1],
    ] as [[UInt8]])
    func utf8AsStringValidatingReadsIt(sequence: [UInt8]) {
        let text = [UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]
        #expect(JSONValidator.isValid(text) == (String(validating: sequence, as: UTF8.self) != nil))
        #expect(agrees(text))
    }

    @Test func depthIsCountedAsTheReaderCountsIt() {
        for limit in 1...4 {
            for depth in 0...6 {
                let text = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
                let objects = Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
                #expect(agrees(text, maxDepth: limit) && agrees(objects, maxDepth: limit), "\(depth) in \(limit)")
                if depth > 0 { #expect(JSONValidator.isValid(text, maxDepth: limit) == (depth <= limit)) }
            }
        }
    }

    /// Generated texts, and each with one byte removed, doubled or replaced by a byte
    /// that matters to the grammar: the two agree on every one.
    @Test func generatedAndBrokenTextsAgree() {
        var rng = SystemRandomNumberGenerator()
        let pieces = ["{", "}", "[", "]", ",", ":", "\"", "\\", "u", "0", "-", ".", "e", " ", "t", "\u{1}", "\u{7f}"]
        let special: [[UInt8]] = pieces.map { Array($0.utf8) } + [[0xC3], [0xA9], [0xED, 0xA0], [0xF4, 0x90]]
        var refused = 0
        for _ in 0..<400 {
            let text = Array(Self.value(&rng, depth: 0).utf8)
            #expect(JSONValidator.isValid(text), "\(String(decoding: text, as: UTF8.self))")
            for _ in 0..<8 where !text.isEmpty {
                var broken = text
                let at = Int.random(in: 0..<broken.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: broken.remove(at: at)
                case 1: broken.insert(broken[at], at: at)
                default: broken.replaceSubrange(at...at, with: special.randomElement(using: &rng)!)
                }
                if !JSONValidator.isValid(broken) { refused += 1 }
                #expect(agrees(broken), "\(broken)")
            }
        }
        #expect(refused > 500)
    }

    static let strings = ["a", "é", "😀", #"\n"#, #"\""#, #"\\"#, #"\/"#, #"\u00e9"#, #"\u001F"#, #"\ud83d\ude00"#, " "]

    static func value(_ rng: inout some RandomNumberGenerator, depth: Int) -> String {
        switch Int.random(in: 0..<(depth > 3 ? 3 : 5), using: &rng) {
        case 0: return "\"" + (0..<Int.random(in: 0...3, using: &rng)).map { _ in strings.randomElement(using: &rng)! }.joined() + "\""
        case 1: return ["0", "-0.5", "12e3", "1E-2", "true", "false", "null"].randomElement(using: &rng)!
        case 2: return "[]"
        case 3: return "[" + (0..<Int.random(in: 1...3, using: &rng)).map { _ in value(&rng, depth: depth + 1) }.joined(separator: ", ") + "]"
        default:
            let members = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                "\"k\(Int.random(in: 0...3, using: &rng))\" : " + value(&rng, depth: depth + 1)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    /// `isValidWithDistinctKeys`: valid, and no object (at any depth) may repeat a key;
    /// cautious about escaped keys and very large objects.
    @Test(arguments: [
        (#"{"a":1,"b":{"a":2,"b":[{"a":3},{"a":4}]}}"#, true), (#"[{"a":1},{"a":1}]"#, true), ("{}", true),
        (#"{"a":1,"b":2,"a":3}"#, false), (#"{"o":{"x":1,"y":{},"x":2}}"#, false), (#"[{"a":1,"a":1}]"#, false),
        (#"{"ab":1,"a":2,"b":3}"#, true), (#"{"k\u0061":1}"#, false), (#"{"a":1,"b":2"#, false),
    ])
    func distinctKeys(text: String, distinct: Bool) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { JSONValidator.isValidWithDistinctKeys($0) } == distinct)
    }

    @Test func distinctKeysAgreeWithTheReaderOnGeneratedObjects() throws {
        for i in 0..<500 {  // objects of 0 to 12 keys out of 20 names, some repeated
            let keys = (0..<(i % 13)).map { j in "\"\((i * 7 + j * j * 3) % 20)\":0" }
            let bytes = Array(("{\"n\":{" + keys.joined(separator: ",") + "}}").utf8)
            let repeated = try JSONReader.parseNotingDuplicateKeys(bytes).hadDuplicateKeys
            #expect(bytes.withUnsafeBufferPointer { JSONValidator.isValidWithDistinctKeys($0) } == !repeated)
        }
    }
}
