@testable import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeTestSupport
import Testing

/// `DocumentParser.body(of:raw:)` copies compact members from the request; whatever
/// the text, it must give the bytes serializing the parsed body gives.
@Suite struct DocumentParserTests {
    static let stringPieces = ["a", "Z", " ", "é", "😀", "_", #"\n"#, #"\""#, #"\\"#, #"\/"#, #"\u00e9"#, #"\u001f"#,
                               #"\u001F"#, #"\t"#, #"\b"#, #"\f"#, #"\r"#, #"\u0000"#, #"\ud83d\ude00"#, #"\u005f"#, "\u{301}"]
    static let numbers = ["0", "-0", "1.0", "1e5", "1E+5", "-12.5e-3", "123456789012345678901234567890", "7"]
    static let spaces = ["", "", "", "", " ", "\n", "\t", "\r\n "]

    static func string(_ rng: inout SplitMix) -> String {
        "\"" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in stringPieces.randomElement(using: &rng)! }.joined() + "\""
    }

    static func value(_ rng: inout SplitMix, depth: Int) -> String {
        let ws = { (rng: inout SplitMix) in spaces.randomElement(using: &rng)! }
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &rng) {
        case 0: return string(&rng)
        case 1: return numbers.randomElement(using: &rng)!
        case 2: return ["true", "false", "null"].randomElement(using: &rng)!
        case 3: return "[" + ws(&rng) + "]"
        case 4:
            let items = (0..<Int.random(in: 1...3, using: &rng)).map { _ in ws(&rng) + value(&rng, depth: depth + 1) + ws(&rng) }
            return "[" + items.joined(separator: ",") + "]"
        default: return object(&rng, depth: depth + 1)
        }
    }

    static func object(_ rng: inout SplitMix, depth: Int) -> String {
        let members = (0..<Int.random(in: 0...4, using: &rng)).map { _ -> String in
            let key = Bool.random(using: &rng) ? ["\"_id\"", "\"_rev\"", "\"_x\"", "\"v\"", "\"_\u{301}\""].randomElement(using: &rng)! : string(&rng)
            let ws = (0..<4).map { _ in spaces.randomElement(using: &rng)! }
            return ws[0] + key + ws[1] + ":" + ws[2] + value(&rng, depth: depth) + ws[3]
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// couch_doc:transfer_fields/3 as CouchDB 3.4.3 answers (conflicts_test.exs /
    /// recreate_doc_test.exs neighbourhood): `_revisions` alone is enough with
    /// new_edits=false, wins over a different `_rev`, and is refused in CouchDB's words.
    @Test func revisionsMemberAsCouchDBReadsIt() throws {
        let parser = DocumentParser(maxDocumentSize: 1 << 20)
        func parse(_ text: String) throws -> DocumentParser.Parsed {
            guard case .object(let object) = try JSONReader.parse(text) else { throw DocumentError.invalidRevision }
            return try parser.parse(object, id: "d", newEdits: false)
        }
        #expect(try parse(#"{"_revisions":{"start":2,"ids":["abc","def"]}}"#).update.history.map(\.description)
                == ["2-abc", "1-def"])
        #expect(try parse(#"{"_rev":"3-abc","_revisions":{"start":2,"ids":["abc"]}}"#).rev?.description == "2-abc")
        let refusals: [(String, DocumentError)] = [
            (#"{"_revisions":{"start":"2","ids":["a"]}}"#, .invalidMember("_revisions.start isn't an integer.")),
            (#"{"_revisions":{"start":2}}"#, .invalidMember("_revisions.ids isn't a array.")),
            (#"{"_revisions":{"start":2,"ids":[1]}}"#, .invalidMember("RevId isn't a string")),
            (#"{"_revisions":[]}"#, .badSpecialMember("_revisions")),
        ]
        for (text, error) in refusals { #expect(throws: error) { try parse(text) } }
        // A new edit ignores `_revisions`: a `_local` checkpoint as CouchDB's replicator PUTs it
        // (`LocalDocHandlers` takes its `_rev` out first) has one starting at 0.
        guard case .object(let checkpoint) = try JSONReader.parse(#"{"_revisions":{"start":0,"ids":["1"]}}"#)
        else { return }
        #expect(throws: Never.self) { try parser.parse(checkpoint, id: "_local/c", newEdits: true) }
    }

    @Test func copiedBodiesEqualSerializedOnes() throws {
        var rng = SplitMix(state: 20261123)
        var compactMembers = 0
        for _ in 0..<2_000 {
            let text = Array(("[" + Self.object(&rng, depth: 1) + "]").utf8)
            let (value, hadDuplicateKeys) = try JSONReader.parseNotingDuplicateKeys(text)
            guard !hadDuplicateKeys else { continue }  // the handlers copy no span then
            let docs = value.arrayValue ?? []
            let spans = text.withUnsafeBufferPointer { JSONSpanScanner.elementMembers(ofArrayIn: $0, at: 0) }
            let object = try #require(docs.first?.objectValue)
            let members = try #require(spans?.first ?? nil)
            compactMembers += members.filter(\.isCompact).count
            let raw = DocumentParser.RawMembers(text: text, spans: members)
            #expect(DocumentParser.body(of: object, raw: raw) == DocumentParser.body(of: object, raw: nil),
                    "\(String(decoding: text, as: UTF8.self))")
        }
        #expect(compactMembers > 300)
    }

    /// CouchDB keeps a repeated key's last value (`jiffy:decode(V, [dedupe_keys])` in
    /// couch_util:json_decode/2): `_id`, `_rev` and body members alike.
    @Test func repeatedKeysTakeTheirLastValue() throws {
        let text = #"{"_id":"a","_id":"b","_rev":"1-abc","_rev":"1-def","v":1,"w":0,"v":2}"#
        let object = try #require(try JSONReader.parse(text).objectValue)
        let parsed = try DocumentParser(maxDocumentSize: 1 << 20).parse(object, id: nil, newEdits: false)
        #expect(parsed.update.id == "b")
        #expect(parsed.update.history.first?.description == "1-def")
        #expect(parsed.update.body == Array(#"{"w":0,"v":2}"#.utf8))
    }

    @Test func spansThatDoNotLineUpAreIgnored() {
        let object: JSONObject = ["a": 1, "b": 2]
        let raw = DocumentParser.RawMembers(text: Array(#"{"a":1}"#.utf8),
                                            spans: [JSONMemberSpan(range: 1..<6, valueStart: 5, isCompact: true)])
        #expect(DocumentParser.body(of: object, raw: raw) == Array(#"{"a":1,"b":2}"#.utf8))
    }
}

extension DocumentParserTests {
    /// CouchDB matches the first byte (`<<"_", _/binary>>`), not the first character:
    /// `_` with a combining accent is special too.
    @Test(arguments: ["_id", "_", "_x", "_é", "_\u{301}", "_\u{301}x", "a", "", "é", "\u{301}_", "_\r\n"])
    func specialMeansStartingWithTheByteUnderscore(key: String) {
        #expect(DocumentParser.isSpecial(key) == (key.utf8.first == UInt8(ascii: "_")))
        #expect(DocumentParser.isSpecial(key) == (key.hasPrefix("_") || key.hasPrefix("_\u{301}")))
    }
}
