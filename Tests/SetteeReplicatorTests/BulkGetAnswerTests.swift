import SetteeJSON
@testable import SetteeReplicator
import Testing

/// `BulkGetAnswer.scan`: each document of a `_bulk_get` answer as its text, read in one
/// pass, and exactly what parsing the answer whole read — or nil, for the caller to do that.
@Suite struct BulkGetAnswerTests {
    /// What the scan found, each document as its text.
    enum Found: Equatable {
        case ok(text: String, id: String, rev: String?, hasAttachments: Bool)
        case missing
    }

    private func scan(_ text: String) -> [[Found]]? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { BulkGetAnswer.scan($0) }?.map { entries in
            entries.map { entry in
                guard case .ok(let doc) = entry else { return .missing }
                return .ok(text: String(decoding: bytes[doc.text], as: UTF8.self), id: doc.id, rev: doc.rev,
                           hasAttachments: doc.hasAttachments)
            }
        }
    }

    /// The answer read as the replicator read it before (parsed whole): per result, per
    /// entry, the `ok` object or nothing.
    private func parsedWhole(_ text: String) throws -> [[JSONObject?]] {
        let results = try #require(try JSONReader.parse(text)["results"]?.arrayValue)
        return results.map { result in (result["docs"]?.arrayValue ?? []).map { $0["ok"]?.objectValue } }
    }

    /// The scan found what the whole parse finds: each text parses to the same object, and
    /// id, rev and `_attachments` are read as `TransferRevision` reads them from the object.
    private func expectSameAsParsedWhole(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let scanned = try #require(scan(text), sourceLocation: sourceLocation)
        let parsed = try parsedWhole(text)
        #expect(scanned.map(\.count) == parsed.map(\.count), sourceLocation: sourceLocation)
        for (entries, objects) in zip(scanned, parsed) {
            for (entry, object) in zip(entries, objects) {
                switch (entry, object) {
                case (.missing, nil): break
                case (.ok(let docText, let id, let rev, let hasAttachments), let object?):
                    #expect(try JSONReader.parse(docText).objectValue == object, sourceLocation: sourceLocation)
                    let revision = TransferRevision(json: object)
                    #expect(id == revision.id && rev == revision.rev, sourceLocation: sourceLocation)
                    #expect(hasAttachments == (object["_attachments"] != nil), sourceLocation: sourceLocation)
                default: Issue.record("\(entry) against \(String(describing: object))", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func couchDBsAnswerWithErrorEntriesAndSeveralLeaves() throws {
        // As CouchDB 3.4.3 answers `_bulk_get?revs=true&latest=true` (white space aside):
        // a document, a revision it cannot serve, and two leaves for one revision asked for.
        let text = #"""
            {"results": [
              {"id": "a", "docs": [{"ok": {"_id":"a","_rev":"1-x","_revisions":{"start":1,"ids":["x"]},"v":1}}]},
              {"id": "b", "docs": [{"error": {"id":"b","rev":"1-y","error":"not_found","reason":"missing"}}]},
              {"id": "c", "docs": [{"ok":{"_id":"c","_rev":"2-p","n":[1,{"deep":{"er":null}}]}},
                                  {"ok":{"_id":"c","_rev":"2-q","_deleted":true,"_revisions":{"start":2,"ids":["q","o"]}}}]}
            ]}
            """#
        #expect(scan(text) == [
            [.ok(text: #"{"_id":"a","_rev":"1-x","_revisions":{"start":1,"ids":["x"]},"v":1}"#, id: "a", rev: "1-x",
                 hasAttachments: false)],
            [.missing],
            [.ok(text: #"{"_id":"c","_rev":"2-p","n":[1,{"deep":{"er":null}}]}"#, id: "c", rev: "2-p", hasAttachments: false),
             .ok(text: #"{"_id":"c","_rev":"2-q","_deleted":true,"_revisions":{"start":2,"ids":["q","o"]}}"#, id: "c",
                 rev: "2-q", hasAttachments: false)],
        ])
        try expectSameAsParsedWhole(text)
    }

    /// Apache CouchDB 3.4.3's own answer (the reference server, 2026-11-27), verbatim: a
    /// document with an attachment stub, one without, a document and a revision it lacks.
    @Test func couchDB343sAnswerAsItSentIt() throws {
        let text = #"{"results":[{"id":"a/é","docs":[{"ok":{"_id":"a/é","_rev":"1-d69a378cff1ef84a61d15c110e2366f7","v":"x\u0001/y","n":1500.0,"_revisions":{"start":1,"ids":["d69a378cff1ef84a61d15c110e2366f7"]},"_attachments":{"f.txt":{"content_type":"text/plain","revpos":1,"digest":"md5-QTVOnBwGnrw6Tx9YG1ZRyA==","length":2,"stub":true}}}}]},{"id":"b","docs":[{"ok":{"_id":"b","_rev":"1-cb0f56df72d38d7cb8f99b576103063c","w":[1,{"z":null}],"_revisions":{"start":1,"ids":["cb0f56df72d38d7cb8f99b576103063c"]}}}]},{"id":"c","docs":[{"error":{"rev":"undefined","reason":"missing","id":"c","error":"not_found"}}]},{"id":"b","docs":[{"error":{"rev":"1-zzz","reason":"missing","id":"b","error":"not_found"}}]}]}"#
        let found = try #require(scan(text))
        #expect(found.map(\.count) == [1, 1, 1, 1])
        #expect(found[2] == [.missing] && found[3] == [.missing])
        guard case .ok(_, let id, let rev, let hasAttachments)? = found[0].first,
              case .ok(let docText, "b", "1-cb0f56df72d38d7cb8f99b576103063c", false)? = found[1].first else {
            Issue.record("\(found)")
            return
        }
        #expect(id == "a/é" && rev == "1-d69a378cff1ef84a61d15c110e2366f7" && hasAttachments)
        #expect(docText == #"{"_id":"b","_rev":"1-cb0f56df72d38d7cb8f99b576103063c","w":[1,{"z":null}],"_revisions":{"start":1,"ids":["cb0f56df72d38d7cb8f99b576103063c"]}}"#)
        try expectSameAsParsedWhole(text)
    }

    @Test func escapesUnicodeAndWhiteSpaceStayAsTheSourceWroteThem() throws {
        // The text is copied, not written again: `\/`, `\u00e9` and white space stay.
        let text = #"{"results":[{"id":"d\u00e9","docs":[{"ok":{ "_id" : "d\u00e9\/x" , "_rev":"1-a","s":"\"q\" \\ \n é 😀 \ud83d\ude00"} }]}]}"#
        #expect(scan(text) == [[.ok(text: #"{ "_id" : "d\u00e9\/x" , "_rev":"1-a","s":"\"q\" \\ \n é 😀 \ud83d\ude00"}"#,
                                    id: "dé/x", rev: "1-a", hasAttachments: false)]])
        try expectSameAsParsedWhole(text)
    }

    @Test func attachmentStubsMarkTheDocumentForTheAttachmentsPath() throws {
        let text = #"{"results":[{"id":"a","docs":[{"ok":{"_id":"a","_rev":"2-b","_attachments":{"f.txt":{"content_type":"text/plain","revpos":1,"digest":"md5-x","length":3,"stub":true}}}}]},"#
            + #"{"id":"n","docs":[{"ok":{"_id":"n","_rev":"1-c","_attachments":null}}]}]}"#
        let found = try #require(scan(text))
        #expect(found.map { $0.map { if case .ok(_, _, _, let has) = $0 { has } else { false } } } == [[true], [true]])
        try expectSameAsParsedWhole(text)
    }

    /// A member it reads, given twice, is left to the whole parse, which keeps the last as
    /// CouchDB's jiffy does (`dedupe_keys`): the id and rev then match what a target stores.
    @Test(arguments: [
        #"{"results":[{"docs":[{"ok":{"_id":"first","_id":"second","_rev":"1-a"}}]}]}"#,
        #"{"results":[{"docs":[{"ok":{"_id":"a","_rev":"1-a","_rev":"2-b"}}]}]}"#,
        #"{"results":[{"docs":[{"ok":{"_id":"a","_rev":"1-a"},"ok":{"_id":"other"}}]}]}"#,
        #"{"results":[{"docs":[{"ok":{"_id":"a","_rev":"1-a"}}],"docs":[]}]}"#,
        #"{"results":[{"docs":[]}],"results":[]}"#,
    ])
    func aRepeatedMemberItReadsIsLeftToTheWholeParse(_ text: String) {
        #expect(scan(text) == nil)
    }

    @Test func entriesWithoutAnOkObjectAreMissing() throws {
        let text = #"{"results":[{"id":"a","docs":[{"ok":null},{"ok":[1]},{},5,"x",{"error":{}},{"okay":{}}]}]}"#
        #expect(scan(text) == [[.missing, .missing, .missing, .missing, .missing, .missing, .missing]])
        try expectSameAsParsedWhole(text)
    }

    @Test func idsAndRevsThatAreNoStringsReadAsTheObjectReadsThem() throws {
        let text = #"{"results":[{"docs":[{"ok":{"_id":7,"_rev":{"a":[]}}},{"ok":{"x":1}},{"ok":{}}]},{"docs":[]}]}"#
        #expect(scan(text) == [[.ok(text: #"{"_id":7,"_rev":{"a":[]}}"#, id: "", rev: nil, hasAttachments: false),
                                .ok(text: #"{"x":1}"#, id: "", rev: nil, hasAttachments: false),
                                .ok(text: "{}", id: "", rev: nil, hasAttachments: false)], []])
        try expectSameAsParsedWhole(text)
    }

    /// Anything but the usual shape is left to the whole parse, which reads it as before.
    @Test(arguments: [
        #"{"results":[{"docs":[{"ok":{"_id":"a"}}]}]} x"#,         // trailing bytes
        #"{"results":[{"docs":[{"ok":{"_id":"a","v":01}}]}]}"#,    // a bad number deep in a body
        "{\"results\":[{\"docs\":[{\"ok\":{\"_id\":\"a\u{01}\"}}]}]}",  // a raw control character
        #"{"results":[{"docs":[{"ok":{"_id":"a","v":"\ud800"}}]}]}"#,  // a lone surrogate
        #"{"results":[{"docs":[{"ok":{"_id":"a"}}]}]"#,            // cut short
        #"{"\u0072esults":[]}"#, #"{"results":[{"\u0064ocs":[]}]}"#,  // escaped keys where keys are read
        #"{"results":[{"docs":[{"\u006fk":{}}]}]}"#, #"{"results":[{"docs":[{"ok":{"\u005fid":"a"}}]}]}"#,
        #"{"results":[{"id":"a"}]}"#, #"{"results":[{"docs":{}}]}"#, #"{"results":[[]]}"#, #"{"results":{}}"#,
        #"{"rows":[]}"#, #"[]"#, "",
    ])
    func unusualAnswersAreLeftToTheWholeParse(_ text: String) {
        #expect(scan(text) == nil)
    }

    @Test func bytesTheReaderRefusesAreNeverPassed() {
        var bytes = Array(#"{"results":[{"docs":[{"ok":{"_id":"a","v":"xx"}}]}]}"#.utf8)
        bytes[bytes.count - 9] = 0xFF
        #expect(bytes.withUnsafeBufferPointer { BulkGetAnswer.scan($0) } == nil)
        #expect((try? JSONReader.parse(bytes)) == nil)
    }

    @Test func anEmptyAnswerHasNoResults() throws {
        #expect(scan(#"{"results":[]}"#) == [])
        #expect(scan(#" { "results" : [ { "id" : "a" , "docs" : [ ] } ] } "#) == [[]])
    }
}
