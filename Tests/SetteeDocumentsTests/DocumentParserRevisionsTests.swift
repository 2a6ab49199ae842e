@testable import SetteeDocuments
import SetteeJSON
import SetteeStore
import Testing

/// `DocumentParser.compactHistory` reads only the compact form, and what it reads is
/// what `history(_:)` makes of the parsed value; everything else is left to `history(_:)`.
@Suite struct DocumentParserRevisionsTests {
    private func compact(_ text: String) -> [RevisionID]? {
        Array(text.utf8).withUnsafeBufferPointer { DocumentParser.compactHistory($0) }
    }

    private func parsed(_ text: String) -> Result<[RevisionID], any Error> {
        Result { try DocumentParser.history(try JSONReader.parse(text)) }
    }

    @Test(arguments: [
        #"{"start":2,"ids":["abc","def"]}"#, #"{"start":1,"ids":["x"]}"#, #"{"start":5,"ids":["a","b"]}"#,
        #"{"start":3,"ids":["0123456789abcdef0123456789ABCDEF","b","c"]}"#, #"{"start":1,"ids":["é😀"]}"#,
        #"{"start":123456789012,"ids":["z"]}"#,
    ])
    func compactFormIsReadAsHistoryReadsIt(text: String) throws {
        let fast = try #require(compact(text))
        #expect(fast == (try parsed(text).get()))
    }

    /// Not compact, or refused: nil here, and `history(_:)` decides (with its error when refused).
    @Test(arguments: [
        #"{"start":1,"ids":["a","b"]}"#, #"{"start":0,"ids":["a"]}"#, #"{"start":02,"ids":["a"]}"#,
        #"{"start":2,"ids":[]}"#, #"{"ids":["a"],"start":1}"#, #"{ "start":1,"ids":["a"]}"#,
        #"{"start":1,"ids":["a"] }"#, #"{"start":1,"ids":["\u0061"]}"#, #"{"start":1,"ids":[""]}"#,
        #"{"start":1,"ids":[1]}"#, #"{"start":1.0,"ids":["a"]}"#, #"{"start":-1,"ids":["a"]}"#,
        #"{"start":1,"ids":["a"],"x":1}"#, #"{"start":2,"ids":["a","0123456789abcdef0123456789abcdeg"]}"#,
        #"{"start":1234567890123,"ids":["a"]}"#, #"{"start":1,"ids":["a",]}"#, #"{"start":1,"ids":["a"]"#,
        #"{"start":1,"ids":["a"]}x"#, #"{"start":"1","ids":["a"]}"#, #"[]"#,
    ])
    func otherFormsAreLeftToHistory(text: String) {
        #expect(compact(text) == nil)
    }

    @Test func refusalsStillComeFromHistory() {
        // The same words as before: `history(_:)` answers these.
        let cases: [(String, DocumentError)] = [
            (#"{"start":1,"ids":["a","b"]}"#, .invalidMember("_revisions member is invalid")),
            (#"{"start":1,"ids":[1]}"#, .invalidMember("RevId isn't a string")),
            (#"{"start":"1","ids":["a"]}"#, .invalidMember("_revisions.start isn't an integer.")),
        ]
        for (text, error) in cases {
            #expect(compact(text) == nil)
            #expect(throws: error) { try parsed(text).get() }
        }
    }
}
