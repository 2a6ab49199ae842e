import SetteeDocuments
import SetteeJSON
@testable import SetteeReplicator
import Testing

/// A revision carried as the source's text or as a parsed object, and the `_bulk_docs`
/// body made of both (`RemotePeer.bulkDocsBody`).
@Suite struct TransferRevisionTests {
    private let answer = Array(#"{"results":[{"docs":[{"ok":{ "_id" : "a\/b", "_rev":"1-x","v":"\u00e9"}}]}]}"#.utf8)

    private func textRevision() throws -> TransferRevision {
        let entries = try #require(answer.withUnsafeBufferPointer { BulkGetAnswer.scan($0) })
        guard case .ok(let doc)? = entries.first?.first else {
            Issue.record("no document in \(entries)")
            return TransferRevision(json: [:])
        }
        return TransferRevision(text: answer, range: doc.text, id: doc.id, rev: doc.rev)
    }

    @Test func bulkDocsCopiesTheSourceTextAndWritesTheRest() throws {
        let written = TransferRevision(json: ["_id": "b", "_rev": "1-y", "s": "q\"/"])
        let body = String(decoding: RemotePeer.bulkDocsBody([try textRevision(), written]), as: UTF8.self)
        #expect(body == #"{"new_edits":false,"docs":[{ "_id" : "a\/b", "_rev":"1-x","v":"\u00e9"},{"_id":"b","_rev":"1-y","s":"q\"/"}]}"#)
        // What the target reads: both documents, as the parsed answer has them.
        let docs = try #require(try JSONReader.parse(Array(body.utf8))["docs"]?.arrayValue)
        #expect(docs == [.object(try textRevision().json()), .object(try written.json())])
        #expect(RemotePeer.bulkDocsBody([]) == Array(#"{"new_edits":false,"docs":[]}"#.utf8))
    }

    @Test func aTextRevisionReadsAsTheParsedDocument() throws {
        let revision = try textRevision()
        let parsed = try #require(try JSONReader.parse(answer)["results"]?[0]?["docs"]?[0]?["ok"]?.objectValue)
        #expect(try revision.json() == parsed)
        #expect(revision.id == "a/b" && revision.rev == "1-x")
        #expect(revision.attachments.isEmpty)
    }

    /// The store copies a text revision's compact members and writes the others again:
    /// the body it keeps is the one it kept from the parsed object.
    @Test func theStoreKeepsTheSameBodyFromTextAsFromTheObject() throws {
        let revision = try textRevision()
        let raw = try #require(revision.rawMembers)
        #expect(raw.spans.count == 3)
        let object = try revision.json()
        #expect(DocumentParser.body(of: object, raw: raw) == DocumentParser.body(of: object, raw: nil))
        #expect(String(decoding: DocumentParser.body(of: object, raw: raw), as: UTF8.self) == #"{"v":"é"}"#)
        #expect(TransferRevision(json: object).rawMembers == nil)
    }

    /// A document whose text repeats a key inside a member gives no spans to copy: its
    /// parsed value keeps the last (CouchDB's rule), and the store keeps that value's text.
    @Test func aTextThatRepeatsAKeyIsWrittenAgain() throws {
        let text = Array(#"{"results":[{"docs":[{"ok":{"_id":"a","_rev":"1-x","o":{"k":1,"k":2}}}]}]}"#.utf8)
        let entries = try #require(text.withUnsafeBufferPointer { BulkGetAnswer.scan($0) })
        guard case .ok(let doc)? = entries.first?.first else {
            Issue.record("no document in \(entries)")
            return
        }
        let revision = TransferRevision(text: text, range: doc.text, id: doc.id, rev: doc.rev)
        #expect(revision.rawMembers == nil)
        let object = try revision.json()
        #expect(String(decoding: DocumentParser.body(of: object, raw: revision.rawMembers), as: UTF8.self) == #"{"o":{"k":2}}"#)
    }
}

extension JSONValue {
    fileprivate subscript(_ index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
