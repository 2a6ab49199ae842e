import SetteeJSON
import Testing

/// `UnicodeCollator`: ICU's root collation, as CouchDB's couch_ejson_compare.c uses it.
@Suite struct UnicodeCollatorTests {
    /// CouchDB's docs ("Views Collation") and view_collation_test.exs: case after the
    /// letter, accents before case only where letters are equal.
    @Test func couchDBsDocumentedOrder() {
        let order = ["a", "A", "aa", "b", "B", "ba", "bb", "E", "é", "É", "f", "z", "Z", "ζ"]
        for (i, lower) in order.enumerated() {
            for higher in order[(i + 1)...] {
                #expect(UnicodeCollator.compare(lower, higher) == -1, "\(lower) < \(higher)")
                #expect(UnicodeCollator.compare(higher, lower) == 1)
                #expect(sortKey(lower).lexicographicallyPrecedes(sortKey(higher)))
            }
        }
    }

    @Test func canonicallyEquivalentStringsAreEqual() {
        // U+00E9 and e + U+0301 are one character to ICU (normalization), as to CouchDB.
        #expect(UnicodeCollator.compare("caf\u{E9}", "cafe\u{301}") == 0)
        #expect(sortKey("caf\u{E9}") == sortKey("cafe\u{301}"))
    }

    @Test func sortKeysEndWithTheirOnlyZero() {
        for text in ["", "a", "a\u{0}b", "\u{1F600}", String(repeating: "xyz", count: 400)] {
            let key = sortKey(text)
            #expect(key.last == 0)
            #expect(key.dropLast().allSatisfy { $0 != 0 }, "\(text)")
        }
    }

    @Test func sortKeyOrderIsCompareOrder() {
        var random = IndexKeyEncodingTests.Random(state: 41)
        let alphabet: [Character] = ["a", "A", "b", "\u{E9}", "e", "\u{301}", "-", " ", "1", "\u{3B6}", "\u{0}", "\u{FFFF}"]
        for _ in 0..<5_000 {
            let a = String((0..<random.next(5)).map { _ in alphabet[random.next(alphabet.count)] })
            let b = String((0..<random.next(5)).map { _ in alphabet[random.next(alphabet.count)] })
            let (ka, kb) = (sortKey(a), sortKey(b))
            let bytes = ka == kb ? 0 : (ka.lexicographicallyPrecedes(kb) ? -1 : 1)
            #expect(bytes == UnicodeCollator.compare(a, b), "\(a.unicodeScalars.map(\.value)) vs \(b.unicodeScalars.map(\.value))")
        }
    }

    @Test func versionsAreDotted() {
        for version in [UnicodeCollator.version, UnicodeCollator.algorithmVersion, UnicodeCollator.libraryVersion] {
            #expect(!version.isEmpty)
            #expect(version.split(separator: ".").allSatisfy { UInt8($0) != nil }, "\(version)")
        }
    }

    private func sortKey(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        UnicodeCollator.appendSortKey(text, to: &out)
        return out
    }
}
