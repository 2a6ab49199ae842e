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
