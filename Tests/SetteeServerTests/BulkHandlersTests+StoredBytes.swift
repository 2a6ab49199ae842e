import SetteeHTTP
import SetteeJSON
@testable import SetteeServer
@testable import SetteeStore
import Testing

/// Pins the exact body bytes `_bulk_docs` stores, and so the rev ids it derives from
/// them, for inputs whose text is not what `JSONWriter` writes: white space, number
/// spellings, escapes, duplicate keys, escaped special keys. Whatever shortcut the
/// body path takes, these must not move.
@Suite struct BulkHandlersStoredBytesTests {
    /// (id, the document as sent, the body that must be stored)
    static let cases: [(String, String, String)] = [
        ("plain", #"{"_id":"plain","a":1,"b":"x","c":[true,false,null],"d":{}}"#,
         #"{"a":1,"b":"x","c":[true,false,null],"d":{}}"#),
        ("ws", "{ \"_id\" : \"ws\" ,\n\t\"a\" : [ 1 , 2 ] , \"b\" : { \"c\" : null } ,\"d\":[ ],\"e\":{ } }",
         #"{"a":[1,2],"b":{"c":null},"d":[],"e":{}}"#),
        ("inner-ws", #"{"_id":"inner-ws","a":1,"b":[1, 2],"c":{"d" :3},"e":"f"}"#,
         #"{"a":1,"b":[1,2],"c":{"d":3},"e":"f"}"#),
        ("num", #"{"_id":"num","a":1.0,"b":1e5,"c":-0,"d":123456789012345678901234567890,"e":1E+5,"f":-0.0e-0}"#,
         #"{"a":1.0,"b":1e5,"c":-0,"d":123456789012345678901234567890,"e":1E+5,"f":-0.0e-0}"#),
        ("esc", #"{"_id":"esc","a":"\/","b":"\u00e9","c":"é","d":"\n\t\"\\","e":"\u001F","f":"\u001f","g":"\u000a","h":"\ud83d\ude00","i":"\b\f\r","j":"😀"}"#,
         #"{"a":"/","b":"é","c":"é","d":"\n\t\"\\","e":"\u001f","f":"\u001f","g":"\n","h":"😀","i":"\b\f\r","j":"😀"}"#),
        ("esc-key", #"{"_id":"esc-key","\u0061":1,"b\/c":2,"é":3,"\"":4}"#, #"{"a":1,"b/c":2,"é":3,"\"":4}"#),
        // A repeated key keeps its last value, where it was last written (the last `_id` names it).
        ("dup", #"{"_id":"other","a":1,"a":2,"_id":"dup","b":{"c":1,"c":2}}"#, #"{"a":2,"b":{"c":2}}"#),
        ("mid", #"{"a":1,"_id":"mid","b":2,"_deleted":false}"#, #"{"a":1,"b":2}"#),
        ("escaped-id", #"{"\u005fid":"escaped-id","v":1}"#, #"{"v":1}"#),
        ("empty", #"{"_id":"empty"}"#, "{}"),
        ("deep", #"{"_id":"deep","a":[[[[{"b":[[]]}]]]]}"#, #"{"a":[[[[{"b":[[]]}]]]]}"#),
    ]

    /// Creates `db` and posts every case in one `_bulk_docs`.
    static func postCases(_ h: RouterHarness) async -> RouterHarness.Reply {
        _ = await h.send("PUT", "/db")
        let request = #"{"docs":["# + cases.map(\.1).joined(separator: ",") + "]}"
        return await h.send("POST", "/db/_bulk_docs", body: Array(request.utf8),
                            headers: ["Content-Type": "application/json"])
    }

    @Test func storedBodiesAndRevIDsArePinned() async throws {
        let h = try RouterHarness()
        let r = await Self.postCases(h)
        #expect(r.status == 201)
        let rows = r.json.arrayValue ?? []
        #expect(rows.count == Self.cases.count)
        for ((id, _, body), row) in zip(Self.cases, rows) {
            let rev = RevisionHasher.child(of: nil, isDeleted: false, body: Array(body.utf8))
            #expect(row == ["ok": true, "id": .string(id), "rev": .string(rev.description)], "\(id)")
            let read = await h.send("GET", "/db/\(id)")
            let expected = #"{"_id":"\#(id)","_rev":"\#(rev)""# + (body == "{}" ? "}" : "," + body.dropFirst()) + "\n"
            #expect(read.text == expected, "\(id)")
        }
    }

    /// Literal rev ids, CouchDB's, so a change to the hasher or to the stored bytes shows
    /// up here too.
    @Test func revIDsMatchTheRecordedOnes() async throws {
        let r = await Self.postCases(try RouterHarness())
        let revs = (r.json.arrayValue ?? []).compactMap { $0["rev"]?.stringValue }
        #expect(revs == Self.recordedRevs)
    }

    /// Apache CouchDB 3.4.3's revs for the same `_bulk_docs` request ("dup" included: both
    /// keep a repeated key's last member, `jiffy:decode(V, [dedupe_keys])`).
    static let recordedRevs: [String] = [
        "1-5705d5bda151a7ed00ce22b19c619229",
        "1-800266d8bb00c6d3a6934058f72753a4",
        "1-ebfc52fe89adcff40c1f962f3d37988d",
        "1-cf7755cfeaa3765f6c82229ec6fcbc55",
        "1-aa2fd30a88951078d41a24524719c12c",
        "1-cf0c87c0f1f4412a00a3ed238928f3c9",
        "1-708958fddbd44fc338bb0f361f8a9f65",
        "1-25f9b97d75a648d1fcd23f0a73d2776e",
        "1-7a7e4b29f3af401e69b6f86e4c26b727",
        "1-967a00dff5e02add41819138abb3284d",
        "1-db3b8e68d50ff5900167e6ed83cf793b",
    ]

    /// The one-document paths (PUT, POST, and a `multipart/related` PUT's JSON part) copy
    /// members from the request the same way, so they must store the same bytes: the same
    /// rev ids as the batch for every case.
    @Test func singleDocumentWritesStoreTheSameBytes() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        for ((id, sent, _), rev) in zip(Self.cases, Self.recordedRevs) {
            // The path names the document ("dup" has two `_id`s, and a PUT's path must match
            // the body's, so that case goes by POST alone below).
            if id != "dup" {
                let put = await h.send("PUT", "/db/\(id)-put", body: Array(sent.replacingFirstID(with: "\(id)-put").utf8),
                                       headers: ["Content-Type": "application/json"])
                #expect(put.json["rev"]?.stringValue == rev, "PUT \(id): \(put.text)")
                let boundary = "settee-bytes"
                let json = sent.replacingFirstID(with: "\(id)-mp")
                let multipart = "--\(boundary)\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--\(boundary)--\r\n"
                let mp = await h.send("PUT", "/db/\(id)-mp", body: Array(multipart.utf8),
                                      headers: ["Content-Type": "multipart/related; boundary=\"\(boundary)\""])
                #expect(mp.json["rev"]?.stringValue == rev, "multipart \(id): \(mp.text)")
            }
            let post = await h.send("POST", "/db", body: Array(sent.replacingFirstID(with: "\(id)-post").utf8),
                                    headers: ["Content-Type": "application/json"])
            #expect(post.json["rev"]?.stringValue == rev, "POST \(id): \(post.text)")
        }
    }

    @Test func deletedAndReplicatedDocumentsKeepTheirBodies() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let deleted = #"{"docs":[{"_id":"gone","_deleted":true, "why" : "x"}]}"#
        let r = await h.send("POST", "/db/_bulk_docs", body: Array(deleted.utf8),
                             headers: ["Content-Type": "application/json"])
        let rev = RevisionHasher.child(of: nil, isDeleted: true, body: Array(#"{"why":"x"}"#.utf8))
        #expect(r.json == [["ok": true, "id": "gone", "rev": .string(rev.description)]])
        let replicated = #"{"new_edits":false,"docs":[{"_id":"r","_rev":"2-bb","_revisions":{"start":2,"ids":["bb","aa"]},"v":1.50, "w":"\/"}]}"#
        let put = await h.send("POST", "/db/_bulk_docs", body: Array(replicated.utf8),
                               headers: ["Content-Type": "application/json"])
        #expect(put.status == 201)
        #expect(await h.send("GET", "/db/r").text == #"{"_id":"r","_rev":"2-bb","v":1.50,"w":"/"}"# + "\n")
    }

    @Test func badInputFailsTheWholeRequestAsBefore() async throws {
        let h = try RouterHarness { $0.maxJSONDepth = 6 }
        _ = await h.send("PUT", "/db")
        let bodies: [([UInt8], String)] = [
            (Array(#"{"docs":[{"_id":"u","\u005fx":1}]}"#.utf8), "Bad special document member: _x"),
            (Array(#"{"docs":[{"_id":"v","a":"é"}]}"#.utf8).map { $0 == 0xC3 ? 0xC0 : $0 }, "invalid UTF-8 JSON"),
            (Array(#"{"docs":[{"_id":"d","a":[[[[1]]]]}]}"#.utf8), "JSON nesting exceeds the limit of 6 levels"),
            (Array(#"{"docs":[{"_id":"n","a":01}]}"#.utf8), "invalid UTF-8 JSON"),
            (Array(#"{"docs":[{"_id":"s","a":"\ud800"}]}"#.utf8), "invalid UTF-8 JSON"),
            (Array(#"{"docs":[1]}"#.utf8), "Document must be a JSON object"),
        ]
        for (body, reason) in bodies {
            let r = await h.send("POST", "/db/_bulk_docs", body: body, headers: ["Content-Type": "application/json"])
            #expect(r.status == 400)
            #expect(r.json["reason"]?.stringValue == reason)
        }
        #expect(await h.send("GET", "/db").json["doc_count"] == 0)
    }

    /// `_` followed by a combining accent is one character to Swift, but its first byte is
    /// `_`: a special member CouchDB does not know, refused as CouchDB 3.4.3 refuses it.
    @Test func underscoreWithACombiningMarkIsASpecialMember() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let body = "{\"docs\":[{\"_id\":\"comb\",\"_\u{301}\":1,\"a\":2}]}"
        let r = await h.send("POST", "/db/_bulk_docs", body: Array(body.utf8), headers: ["Content-Type": "application/json"])
        #expect(r.status == 400)
        #expect(r.json == ["error": "doc_validation", "reason": .string("Bad special document member: _\u{301}")])
        #expect(await h.send("GET", "/db/comb").status == 404)
    }

    /// The last `docs` member wins, as on CouchDB 3.4.3 (its `_id` "second" is written).
    @Test func lastDocsMemberWins() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let body = #"{"docs":[{"_id":"first","a":1}],"d\u006fcs":[{"_id":"second"}]}"#
        let r = await h.send("POST", "/db/_bulk_docs", body: Array(body.utf8), headers: ["Content-Type": "application/json"])
        #expect(r.json.arrayValue?.count == 1)
        #expect(r.json.arrayValue?.first?["id"] == "second")
    }
}

private extension String {
    /// The case's text with its first `_id` value (or, without one, a new first member)
    /// naming `id` instead: the body, and so the rev, is unchanged.
    func replacingFirstID(with id: String) -> String {
        for key in [#""_id":""#, #""\u005fid":""#] {
            if let start = firstRange(of: key), let end = self[start.upperBound...].firstIndex(of: "\"") {
                return String(self[..<start.upperBound]) + id + String(self[end...])
            }
        }
        if let ws = firstRange(of: #""_id" : ""#), let end = self[ws.upperBound...].firstIndex(of: "\"") {
            return String(self[..<ws.upperBound]) + id + String(self[end...])
        }
        return "{\"_id\":\"\(id)\"," + dropFirst()
    }
}
