@testable import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeTestSupport
import Testing

/// `ReplicatedBatch.read` (and `DocumentParser.parse(text:members:newEdits:)` under it)
/// must give what parsing the request's value gives, document by document: the same
/// update, body bytes, revisions and attachments, or the same error; and nil, for the
/// value path to answer, whenever the request is not a plain `new_edits:false` batch.
@Suite struct ReplicatedBatchTests {
    static var parser: DocumentParser {
        var parser = DocumentParser(maxDocumentSize: 200)
        parser.newID = { "generated" }
        return parser
    }

    /// What one parse gave, as text: every field of the update, or the error.
    static func outcome(_ parse: () throws -> DocumentParser.Parsed) -> String {
        do {
            let p = try parse()
            let u = p.update
            return "\(u.id) \(String(decoding: u.body, as: UTF8.self)) \(u.isDeleted) \(String(describing: u.baseRevision))"
                + " \(u.history.map(\.description)) \(String(describing: p.attachments)) \(String(describing: p.rev))"
        } catch {
            return "error \(error)"
        }
    }

    /// The value path's answer for `docs` of a request, as the handler computes it.
    static func valueOutcomes(_ text: [UInt8], newEdits: Bool = false) throws -> [String] {
        let (value, hadDuplicateKeys) = try JSONReader.parseNotingDuplicateKeys(text)
        let body = value.objectValue ?? [:]
        let docs = body["docs"]?.arrayValue ?? []
        let position = body.members.firstIndex { $0.key == "docs" } ?? 0
        // As `BulkHandlers.docSpans`: no span is copied from a text that repeated a key.
        let spans = hadDuplicateKeys ? nil
            : text.withUnsafeBufferPointer { JSONSpanScanner.elementMembers(ofMember: position, ofObjectIn: $0) }
        var outcomes: [String] = []
        for (i, doc) in docs.enumerated() {
            let raw = spans?[i].map { DocumentParser.RawMembers(text: text, spans: $0) }
            outcomes.append(outcome { try parser.parse(doc.objectValue ?? [:], id: nil, newEdits: newEdits, raw: raw) })
            if outcomes.last?.hasPrefix("error") == true { break }  // the request stops at the first
        }
        return outcomes
    }

    static func batchOutcomes(_ text: [UInt8]) throws -> [String]? {
        do {
            return try ReplicatedBatch.read(text, maxDepth: 64, parser: parser)?.parsed.map { p in outcome { p } }
        } catch {
            return ["error \(error)"]
        }
    }

    static let specialMembers = [
        #""_id":"d1""#, #""_id":"d2""#, #""_id":1"#, #""_id":"""#, #""_id":"_bad""#, #""_id":"_design/x""#,
        #""\u005fid":"esc""#, #""_id":"\u00e9\n""#, #""_rev":"1-abc""#, #""_rev":"2-def""#, #""_rev":"bad""#,
        #""_rev":3"#, #""_revisions":{"start":2,"ids":["abc","def"]}"#, #""_revisions":{"start":1,"ids":["a","b"]}"#,
        #""_revisions":{"start":"2","ids":["a"]}"#, #""_revisions":{"ids":["a"],"start":3}"#, #""_revisions":[]"#,
        #""_revisions":{"start":2,"ids":[1]}"#, #""_deleted":true"#, #""_deleted":false"#, #""_deleted":"yes""#,
        #""_attachments":{}"#, #""_attachments":[]"#, #""_attachments":{"a.txt":{"stub":true}}"#, #""_x":1"#,
        #""_access":["a"]"#, #""_conflicts":[]"#, #""_revs_info":[]"#, #""_replication_state":"done""#,
        #""_\u0301":1"#, "\"_\u{301}\":1", #""\u005f":2"#, #""_id" : "spaced" "#,
    ]

    static func document(_ rng: inout SplitMix) -> String {
        let members = (0..<Int.random(in: 0...4, using: &rng)).map { _ -> String in
            if Int.random(in: 0..<3, using: &rng) == 0 { return specialMembers.randomElement(using: &rng)! }
            let object = DocumentParserTests.object(&rng, depth: 1)  // "{…}": its members, or a bare body member
            return object.count > 2 ? String(object.dropFirst().dropLast()) : #""v":null"#
        }
        // Mostly with a rev, so that most documents get past "needs _rev".
        let rev = Int.random(in: 0..<4, using: &rng) > 0 ? [#""_rev":"1-aaa""#] : []
        let all = Bool.random(using: &rng) ? rev + members : members + rev
        return "{" + all.joined(separator: ",") + "}"
    }

    @Test func documentsParseAsFromTheirValues() throws {
        var rng = SplitMix(state: 20261127)
        var read = 0, refused = 0, repeated = 0
        for _ in 0..<8_000 {  // most texts are declined (escaped keys): enough are left to compare
            let docs = (0..<Int.random(in: 1...2, using: &rng)).map { _ in Self.document(&rng) }
            let text = Array((#"{"docs":["# + docs.joined(separator: ",") + #"],"new_edits":false}"#).utf8)
            guard let (_, hadDuplicateKeys) = try? JSONReader.parseNotingDuplicateKeys(text) else { continue }
            let expected = try Self.valueOutcomes(text)
            guard let got = try Self.batchOutcomes(text) else {
                // Left to the value path: only a text that repeats a key or has an escaped one.
                repeated += 1
                #expect(hadDuplicateKeys || text.contains(UInt8(ascii: "\\")), "\(String(decoding: text, as: UTF8.self))")
                continue
            }
            #expect(!hadDuplicateKeys)
            if expected.last?.hasPrefix("error") == true {
                refused += 1
                #expect(got.last == expected.last, "\(String(decoding: text, as: UTF8.self))")
            } else {
                read += 1
                #expect(got == expected, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(read > 800 && refused > 800 && repeated > 1_000, "\(read) read, \(refused) refused, \(repeated) repeated")
    }

    /// Escapes, unicode, nesting and spaces in the body, each stored as the value path stores it.
    @Test(arguments: [
        #"{"_rev":"1-a","s":"\u00e9\/\ud83d\ude00\n","ka":1,"a":{"b":[1,{"c":null}]},"n":2}"#,
        #"{"_id":"y","_rev":"1-a","n":-1.5E+3,"é😀":"ok"}"#,
        #"{ "_rev" : "1-a" , "spaced" : [ 1 , 2 ] , "t":"\t" }"#,
        #"{"_revisions":{"start":3,"ids":["c","b","a"]},"_deleted":true,"_replication_state":"x","_access":[1]}"#,
    ])
    func bodiesAndSpecialsOfHandWrittenDocuments(doc: String) throws {
        let text = Array((#"{"new_edits":false,"docs":["# + doc + "]}").utf8)
        #expect(try Self.batchOutcomes(text) == Self.valueOutcomes(text))
    }

    /// A key repeated anywhere (or maybe repeated, escaped): left to the value path, which
    /// keeps the last value where it was last written, as CouchDB (jiffy `dedupe_keys`).
    @Test(arguments: [
        (#"{"_id":"a","_id":"b","_rev":"1-abc","_rev":"1-def","v":1,"w":0,"v":2}"#, #"b {"w":0,"v":2} 1-def"#),
        (#"{"_id":"c","_rev":"1-a","o":{"k":1,"j":2,"k":[3]}}"#, #"c {"o":{"j":2,"k":[3]}} 1-a"#),
        (#"{"_id":"e","_rev":"1-a","k\u0061":1,"ka":2}"#, #"e {"ka":2} 1-a"#),
        (#"{"_id":"f","_rev":"1-a","\u005frev":"2-b"}"#, #"f {} 2-b"#),
    ])
    func repeatedKeysAreLeftToTheValuePath(doc: String, stored: String) throws {
        let text = Array((#"{"new_edits":false,"docs":["# + doc + "]}").utf8)
        #expect(try ReplicatedBatch.read(text, maxDepth: 64, parser: Self.parser) == nil)
        let object = try #require(try JSONReader.parse(text)["docs"]?.arrayValue?.first?.objectValue)
        let update = try Self.parser.parse(object, id: nil, newEdits: false).update
        #expect("\(update.id) \(String(decoding: update.body, as: UTF8.self)) \(update.history[0])" == stored)
    }

    @Test func requestOptionsAreKept() throws {
        let text = Array(#"{"w":3,"docs":[{"_rev":"1-a"}],"new_edits":false}"#.utf8)
        let batch = try #require(try ReplicatedBatch.read(text, maxDepth: 64, parser: Self.parser))
        #expect(batch.options["w"] == 3)
        #expect(batch.parsed.count == 1)
    }

    /// Anything but the plain case is the value path's: it answers those errors in CouchDB's words.
    @Test(arguments: [
        #"{"docs":[{"_rev":"1-a"}]}"#, #"{"docs":[{"_rev":"1-a"}],"new_edits":true}"#,
        #"{"docs":[{"_rev":"1-a"}],"new_edits":"false"}"#, #"{"docs":[{"_rev":"1-a"}],"new_edits":true,"new_edits":false}"#,
        #"{"docs":[{"_rev":"1-a"}],"new_edits":false,"new_edits":true}"#, #"{"docs":[{"_rev":"1-a"}],"docs":[],"new_edits":false}"#,
        #"{"docs":{},"new_edits":false}"#, #"{"new_edits":false}"#, #"{"docs":[1],"new_edits":false}"#,
        #"{"docs":[{"_rev":"1-a"},[]],"new_edits":false}"#, #"[{"docs":[]}]"#, #"{"docs":[],"new_edits":false"#,
        #"{"docs":[{"_id":"_local/x","_rev":"1-a"}],"new_edits":false}"#,
        #"{"docs":[{"_x":1},{"_id":"_local/x"}],"new_edits":false}"#, #"{"docs":[{"a":"\ud800"}],"new_edits":false}"#,
        #"{"docs":[{"a":[[[[[[[[1]]]]]]]]}],"new_edits":false}"#, "{\"docs\":[{\"a\":\"\u{1}\"}],\"new_edits\":false}",
    ])
    func otherRequestsAreLeftToTheValuePath(text: String) throws {
        #expect(try ReplicatedBatch.read(Array(text.utf8), maxDepth: 8, parser: Self.parser) == nil)
    }

    @Test func emptyBatch() throws {
        let empty = try #require(try ReplicatedBatch.read(Array(#"{"docs":[],"new_edits":false}"#.utf8),
                                                          maxDepth: 8, parser: Self.parser))
        #expect(empty.parsed.isEmpty)
    }
}
