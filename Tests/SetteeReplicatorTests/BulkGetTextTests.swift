import SetteeJSON
@testable import SetteeReplicator
import Testing

/// The documents' text in a `_bulk_get` answer (`BulkGetText`), and the `_bulk_docs`
/// body that copies it (`RemotePeer.bulkDocsBody`).
@Suite struct BulkGetTextTests {
    private func ranges(_ text: String) throws -> [[String?]]? {
        let bytes = Array(text.utf8)
        let parsed = try JSONReader.parse(bytes)
        return bytes.withUnsafeBufferPointer { BulkGetText.documentRanges(in: $0, of: parsed) }?.map { result in
            result.map { $0.map { String(decoding: bytes[$0], as: UTF8.self) } }
        }
    }

    @Test func eachOkDocumentIsFoundAsItWasSpelled() throws {
        // White space and an escaped `\/` stay as sent: the text is copied, not rewritten.
        let text = #"{"results": [{"id":"a","docs":[{"ok":{"_id":"a", "_rev":"1-x","v":"\/"}}]},"#
            + #"{"id":"b","docs":[{"error":{"id":"b","rev":"1-y","error":"not_found","reason":"missing"}},"#
            + #"{"ok":{"_id":"b","_rev":"2-z","_revisions":{"start":2,"ids":["z","y"]}}}]}]}"#
        #expect(try ranges(text) == [
            [#"{"_id":"a", "_rev":"1-x","v":"\/"}"#],
            [nil, #"{"_id":"b","_rev":"2-z","_revisions":{"start":2,"ids":["z","y"]}}"#],
        ])
    }

    @Test func aRepeatedOrEscapedKeyNamesTheMemberTheParsedValueReads() throws {
        // The first `ok` is the one `JSONObject` reads; `\u006f` spells `o`, so that key is `ok` too.
        let text = #"{"results":[{"docs":[{"\u006fk":{"_id":"first"},"ok":{"_id":"second"}}]}]}"#
        #expect(try ranges(text) == [[#"{"_id":"first"}"#]])
    }

    @Test func anAnswerNotShapedAsBulkGetHasNoRanges() throws {
        #expect(try ranges(#"{"rows":[]}"#) == nil)
        #expect(try ranges(#"{"results":[{"id":"a"}]}"#) == nil)
        #expect(try ranges(#"[1,2]"#) == nil)
        // An `ok` that is no object is no document.
        #expect(try ranges(#"{"results":[{"docs":[{"ok":true}]}]}"#) == [[nil]])
    }

    @Test func bulkDocsCopiesTheSourceTextAndWritesTheRest() throws {
        let copied = TransferRevision(json: ["_id": "a"], sourceText: ArraySlice(#"{"_id" : "a"}"#.utf8))
        let written = TransferRevision(json: ["_id": "b", "_rev": "1-x"])
        let body = String(decoding: RemotePeer.bulkDocsBody([copied, written]), as: UTF8.self)
        #expect(body == #"{"new_edits":false,"docs":[{"_id" : "a"},{"_id":"b","_rev":"1-x"}]}"#)
        // The body is what the target reads: valid JSON with both documents.
        #expect(try JSONReader.parse(Array(body.utf8))["docs"]?.arrayValue?.count == 2)
    }

    @Test func changingTheJSONDropsTheSourceText() {
        var revision = TransferRevision(json: ["_id": "a"], sourceText: ArraySlice(#"{"_id":"a"}"#.utf8))
        revision.json["_attachments"] = ["x": ["stub": true]]
        #expect(revision.sourceText == nil)
        let body = String(decoding: RemotePeer.bulkDocsBody([revision]), as: UTF8.self)
        #expect(body == #"{"new_edits":false,"docs":[{"_id":"a","_attachments":{"x":{"stub":true}}}]}"#)
    }
}
