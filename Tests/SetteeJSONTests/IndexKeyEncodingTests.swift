import SetteeJSON
import Testing

/// `IndexKeyEncoding`: byte order must be `JSONCollation` order, or an index scan
/// would return rows out of order and ranges would miss documents.
@Suite struct IndexKeyEncodingTests {
    /// A small deterministic generator (SplitMix64); SetteeTestSupport is not a
    /// dependency of this target.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static let strings = ["", "a", "a\u{0}", "a\u{0}b", "ab", "b", "B", "é", "E", "e\u{301}", "日本", "\u{1F600}", "a b",
                          "\u{FFFF}", "Ab"]

    func value(_ random: inout Random, depth: Int = 0) -> JSONValue {
        switch random.next(depth > 1 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.next(2) == 0)
        case 2: return .int(random.next(41) - 20)
        case 3: return .number(JSONNumber(Double(random.next(400) - 200) / 8))
        case 4: return .string(Self.strings[random.next(Self.strings.count)])
        case 5: return .array((0..<random.next(3)).map { _ in value(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<random.next(3) { object[Self.strings[random.next(4)]] = value(&random, depth: depth + 1) }
            return .object(object)
        }
    }

    private func order(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }

    @Test(arguments: [KeyCollation.unicode, .raw])
    func byteOrderIsCollationOrder(_ collation: KeyCollation) {
        var random = Random(state: 2511)
        for _ in 0..<20_000 {
            let (a, b) = (value(&random), value(&random))
            let expected = JSONCollation.compare(a, b, collation: collation).signum()
            #expect(order(IndexKeyEncoding.encode(a, collation: collation),
                          IndexKeyEncoding.encode(b, collation: collation)) == expected, "\(a) vs \(b)")
        }
    }

    @Test func rawCollationIsErlangTermOrder() {
        // view_collation_raw_test.exs: numbers, false, null, true, objects, arrays, strings by bytes.
        let order: [JSONValue] = [-1, 2, false, nil, true, [:], ["a": 1], [], ["a"], "A", "B", "a", "é"]
        for (i, lower) in order.enumerated() {
            for higher in order[(i + 1)...] {
                #expect(JSONCollation.compare(lower, higher, collation: .raw) < 0, "\(lower) < \(higher)")
                #expect(self.order(IndexKeyEncoding.encode(lower, collation: .raw),
                                   IndexKeyEncoding.encode(higher, collation: .raw)) < 0)
            }
        }
    }

    @Test func documentIDsOrderByBytes() {
        // Rows with equal keys come by id, compared as Erlang binaries (less_json_ids/2).
        var (upper, lower, accented): ([UInt8], [UInt8], [UInt8]) = ([], [], [])
        IndexKeyEncoding.appendDocumentID("B", to: &upper)
        IndexKeyEncoding.appendDocumentID("a", to: &lower)
        IndexKeyEncoding.appendDocumentID("\u{E9}", to: &accented)
        #expect(order(upper, lower) == -1)
        #expect(order(lower, accented) == -1)
    }

    @Test func compoundKeysCompareFieldByField() {
        var random = Random(state: 7)
        for _ in 0..<5_000 {
            let a = [value(&random), value(&random)]
            let b = random.next(3) == 0 ? [a[0], value(&random)] : [value(&random), value(&random)]
            var (ka, kb): ([UInt8], [UInt8]) = ([], [])
            for v in a { IndexKeyEncoding.append(v, to: &ka) }
            for v in b { IndexKeyEncoding.append(v, to: &kb) }
            let first = JSONCollation.compare(a[0], b[0]).signum()
            let expected = first != 0 ? first : JSONCollation.compare(a[1], b[1]).signum()
            #expect(order(ka, kb) == expected, "\(a) vs \(b)")
        }
    }

    @Test func upperBoundEnclosesEveryExtension() {
        // Every key that begins with enc(v) lies in [enc(v), enc(v) + 0xFF).
        var random = Random(state: 99)
        for _ in 0..<2_000 {
            let v = value(&random)
            let prefix = IndexKeyEncoding.encode(v)
            var key = prefix
            IndexKeyEncoding.append(value(&random), to: &key)
            #expect(!key.lexicographicallyPrecedes(prefix))
            #expect(key.lexicographicallyPrecedes(IndexKeyEncoding.upperBound(prefix)))
        }
    }

    @Test func numbersByValue() {
        #expect(IndexKeyEncoding.encode(1) == IndexKeyEncoding.encode(1.0))
        #expect(IndexKeyEncoding.encode(0) == IndexKeyEncoding.encode(.number(JSONNumber(text: "-0.0"))))
        #expect(order(IndexKeyEncoding.encode(-1.5), IndexKeyEncoding.encode(-1)) == -1)
        #expect(order(IndexKeyEncoding.encode(1e300), IndexKeyEncoding.encode("")) == -1)
    }

    /// A view's index key (emitted key, document id, emit's place) gives its document id
    /// back, for every kind of emitted key in both collations; anything else gives nil.
    @Test func viewKeysGiveTheirDocumentIDBack() throws {
        let keys: [JSONValue] = [
            .null, .bool(false), .bool(true), 0, -1.5, 1e300, "", "a", "é 😀 \u{0} x", .array([]),
            .array([1, "b", .array([.null, .object(JSONObject([("k", "v")]))])]),
            .object(JSONObject([("a", 1), ("", .array(["x"])), ("\u{0}", .bool(true))])),
        ]
        let ids = ["p0000001", "", "_design/x", "a\u{0}b\u{0}", "é/😀 id", "q\"uo\\te\n"]
        for collation in [KeyCollation.unicode, .raw] {
            for key in keys {
                for id in ids {
                    var bytes = IndexKeyEncoding.encode(key, collation: collation)
                    IndexKeyEncoding.appendDocumentID(id, to: &bytes)
                    IndexKeyEncoding.append(.int(3), to: &bytes)
                    #expect(IndexKeyEncoding.documentID(inViewKey: bytes, collation: collation) == id, "\(key) \(id) \(collation)")
                    #expect(IndexKeyEncoding.documentID(inViewKey: Array(bytes.dropLast()), collation: collation) == nil)
                    // Written as a JSON string straight from the key: the id as JSONWriter writes it.
                    var written: [UInt8] = [], expected: [UInt8] = []
                    JSONWriter.writeString(id, to: &expected)
                    #expect(IndexKeyEncoding.writeDocumentID(inViewKey: bytes, collation: collation, asJSONStringTo: &written))
                    #expect(written == expected, "\(key) \(id) \(collation)")
                }
            }
        }
        var noPlace = IndexKeyEncoding.encode(1)
        var untouched: [UInt8] = [1, 2]
        IndexKeyEncoding.appendDocumentID("d", to: &noPlace)
        #expect(!IndexKeyEncoding.writeDocumentID(inViewKey: noPlace, collation: .unicode, asJSONStringTo: &untouched))
        #expect(untouched == [1, 2])
        noPlace = IndexKeyEncoding.encode(1)
        IndexKeyEncoding.appendDocumentID("d", to: &noPlace)
        #expect(IndexKeyEncoding.documentID(inViewKey: noPlace, collation: .unicode) == nil)
        #expect(IndexKeyEncoding.documentID(inViewKey: [], collation: .unicode) == nil)
    }
}
