import Testing
@testable import SetteeStore

@Suite struct RevisionIDTests {
    @Test func parsesGenerationAndSuffix() throws {
        let rev = try #require(RevisionID("12-abc"))
        #expect(rev.generation == 12)
        #expect(rev.suffix == "abc")
        #expect(rev.description == "12-abc")
        // A sign on the generation is read as `Int(_:)` reads it.
        #expect(RevisionID("+3-abc") == RevisionID(generation: 3, suffix: "abc"))
    }

    /// CouchDB 3.4.3 stores an uppercase 32-hex suffix (new_edits=false) lowercased.
    @Test func a32HexSuffixIsLowercased() throws {
        let upper = try #require(RevisionID("1-0123456789ABCDEF0123456789ABCDEF"))
        #expect(upper.suffix == "0123456789abcdef0123456789abcdef")
        #expect(RevisionID("1-0123456789abcdef0123456789abcdeg") == nil)
    }

    @Test func rejectsWhatIsNotARevision() {
        for text in ["", "1", "1-", "-abc", "0-abc", "x-abc", "١-abc", "+-abc", "++1-abc", "99999999999999999999-abc"] {
            #expect(RevisionID(text) == nil, "\(text)")
        }
    }

    /// The one-pass parser reads every text as the rule says in plain words (`reference`):
    /// 20,000 generated texts of digits, signs, dashes and hex letters, a third of them with a
    /// 32-character suffix.
    @Test func parsesGeneratedTextsAsThePlainRuleDoes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let alphabet = Array("0123456789abcdefABCDEF+-xg")
        for round in 0..<20_000 {
            let head = String((0..<next(6)).map { _ in alphabet[next(12) < 10 ? next(10) : next(alphabet.count)] })
            let tailLength = round % 3 == 0 ? 32 : next(40)
            let tail = String((0..<tailLength).map { _ in alphabet[next(next(8) == 0 ? alphabet.count : 22)] })
            for text in [head + "-" + tail, head + tail, tail] {
                #expect(RevisionID(text) == Self.reference(text), "\(text)")
            }
        }
    }

    /// `N-sig` read with `String` and `Int` calls: the first dash splits; one leading `+`;
    /// digits only, 1 ≤ N < 2⁴⁰; a suffix not empty, and one of 32 characters hex, lowercased.
    private static func reference(_ text: String) -> RevisionID? {
        guard let dash = text.firstIndex(of: "-") else { return nil }
        var digits = text[..<dash]
        if digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
              let generation = Int(digits), generation >= 1, generation < 1 << 40 else { return nil }
        let suffix = String(text[text.index(after: dash)...])
        guard !suffix.isEmpty else { return nil }
        guard suffix.utf8.count == 32 else { return RevisionID(generation: generation, suffix: suffix) }
        guard suffix.allSatisfy(\.isHexDigit) else { return nil }
        return RevisionID(generation: generation, suffix: suffix.lowercased())
    }

    /// `_revisions` gives generation and suffix apart: they are checked as the text form's are.
    @Test func generationAndSuffixGivenApartAreCheckedAlike() {
        #expect(RevisionID(generation: 2, validating: "0123456789ABCDEF0123456789ABCDEF")
                == RevisionID("2-0123456789abcdef0123456789abcdef"))
        #expect(RevisionID(generation: 3, validating: "a-b") == RevisionID("3-a-b"))
        #expect(RevisionID(generation: 1, validating: "") == nil)
        #expect(RevisionID(generation: 0, validating: "abc") == nil)
        #expect(RevisionID(generation: 1, validating: "0123456789abcdef0123456789abcdeg") == nil)
    }

    @Test func ordersByGenerationThenSuffixBytes() throws {
        let a = try #require(RevisionID("2-b")), b = try #require(RevisionID("10-a")), c = try #require(RevisionID("2-c"))
        #expect(a < b)
        #expect(a < c)
        #expect(!(c < a))
    }
}
