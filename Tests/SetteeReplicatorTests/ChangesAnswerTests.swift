import SetteeJSON
@testable import SetteeReplicator
import Testing

/// A `_changes` page read in one pass (`ChangesAnswer`), exactly as the page parsed whole was read.
@Suite struct ChangesAnswerTests {
    /// A row as the tests compare them.
    struct Row: Equatable {
        var seq: JSONValue
        var id: String
        var revisions: [String]
    }

    private func scan(_ text: String) -> (rows: [Row], lastSeq: JSONValue)? {
        guard let page = Array(text.utf8).withUnsafeBufferPointer({ ChangesAnswer.scan($0) }) else { return nil }
        return (page.rows.map { Row(seq: $0.seq, id: $0.id, revisions: $0.revisions) }, page.lastSeq)
    }

    /// The page as `RemotePeer.changes` read it before: parsed whole; nil where that was malformed.
    private func parsedWhole(_ text: String) -> (rows: [Row], lastSeq: JSONValue)? {
        guard let answer = try? JSONReader.parse(text), let results = answer["results"]?.arrayValue,
              let lastSeq = answer["last_seq"] else { return nil }
        var rows: [Row] = []
        for row in results {
            guard let id = row["id"]?.stringValue, let seq = row["seq"], let changes = row["changes"]?.arrayValue else { return nil }
            rows.append(Row(seq: seq, id: id, revisions: changes.compactMap { $0["rev"]?.stringValue }))
        }
        return (rows, lastSeq)
    }

    private func expectSameAsParsedWhole(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let scanned = scan(text), parsed = parsedWhole(text)
        #expect(scanned != nil, "\(text)", sourceLocation: sourceLocation)
        #expect(scanned?.rows == parsed?.rows && scanned?.lastSeq == parsed?.lastSeq, "\(text)", sourceLocation: sourceLocation)
    }

    /// Apache CouchDB 3.4.3's own page (the reference server, 2026-11-27), verbatim: opaque
    /// string seqs, two leaves of a conflict, a deleted document whose id has an escape.
    @Test func couchDB343sPageAsItSentIt() throws {
        let text = #"""
            {"results":[
            {"seq":"1-g1AAAACbeJzLYWBgYMpgTmEQTM4vTc5ISXIwNDLXMwBCwxyQVCJDUv3___-zMpgTGXKBAuwpSWlGJhYm2DTgMSaPBUgyNACp_1DTGMGmGZqbJhuammPTlwUAINooIg","id":"a","changes":[{"rev":"1-bbb"},{"rev":"1-aaa"}]},
            {"seq":"2-g1AAAACbeJzLYWBgYMpgTmEQTM4vTc5ISXIwNDLXMwBCwxyQVCJDUv3___-zMpgTGXKBAuwpSWlGJhYm2DTgMSaPBUgyNACp_1DTmMCmGZqbJhuammPTlwUAIPwoIw","id":"d\"é","changes":[{"rev":"2-ccc"}],"deleted":true}
            ],
            "last_seq":"2-g1AAAACbeJzLYWBgYMpgTmEQTM4vTc5ISXIwNDLXMwBCwxyQVCJDUv3___-zMpgTGXKBAuwpSWlGJhYm2DTgMSaPBUgyNACp_1DTmMCmGZqbJhuammPTlwUAIPwoIw","pending":0}
            """#
        let page = try #require(scan(text))
        #expect(page.rows.map(\.id) == ["a", "d\"é"])
        #expect(page.rows.map(\.revisions) == [["1-bbb", "1-aaa"], ["2-ccc"]])
        #expect(page.rows[1].seq == page.lastSeq && page.lastSeq.stringValue?.hasPrefix("2-g1AAAA") == true)
        expectSameAsParsedWhole(text)
    }

    @Test(arguments: [
        #"{"results":[{"seq":1,"id":"a","changes":[{"rev":"1-x"}]},{"seq":2,"id":"b","changes":[{"rev":"2-y"},{"rev":"1-z"}],"deleted":true}],"last_seq":2,"pending":7}"#,
        #"{"results":[],"last_seq":0}"#, #"{"last_seq":[1,"x"],"results":[]}"#, #"{"results":[],"last_seq":null}"#,
        #"{"results":[{"id":"a","seq":{"s":[1]},"changes":[]}],"last_seq":1.5e2}"#,
        #"{"results":[{"seq":1,"id":"a","changes":[{"rev":"1-x"},5,{"rev":7},{}]}],"last_seq":1}"#,
        #"{"results":[{"seq":1,"id":"\u0061\/","changes":[{"rev":"1-\u0078"}]}],"last_seq":"9-\u0041"}"#,
    ])
    func readsAsTheWholeParseReads(_ text: String) {
        expectSameAsParsedWhole(text)
    }

    /// Anything else is left to the whole parse (which reads it, or reports it malformed).
    @Test(arguments: [
        #"{"results":[]}"#, #"{"last_seq":1}"#, #"[]"#, "", #"{"results":{},"last_seq":1}"#,
        #"{"results":[{"id":"a","changes":[]}],"last_seq":1}"#, #"{"results":[{"seq":1,"changes":[]}],"last_seq":1}"#,
        #"{"results":[{"seq":1,"id":7,"changes":[]}],"last_seq":1}"#, #"{"results":[{"seq":1,"id":"a","changes":{}}],"last_seq":1}"#,
        #"{"results":[5],"last_seq":1}"#, #"{"\u0072esults":[],"last_seq":1}"#, #"{"results":[],"last_seq":1} x"#,
        #"{"results":[{"seq":1,"id":"a\ud800","changes":[]}],"last_seq":1}"#, #"{"results":[],"last_seq":01}"#,
        // A member it reads, given twice: the whole parse keeps the last, as CouchDB's jiffy does.
        #"{"results":[{"seq":1,"id":"a","changes":[{"rev":"2-y","rev":"3-z"}]}],"last_seq":1}"#,
        #"{"results":[{"seq":1,"id":"a","changes":[],"id":"b","seq":9}],"last_seq":1}"#,
        #"{"results":[{"seq":1,"id":"a","changes":[]}],"results":[],"last_seq":1,"last_seq":2}"#,
    ])
    func unusualPagesAreLeftToTheWholeParse(_ text: String) {
        #expect(scan(text) == nil)
    }
}
