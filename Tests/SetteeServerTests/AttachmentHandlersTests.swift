import Foundation
import SetteeHTTP
import SetteeJSON
@testable import SetteeStore
import Testing

@Suite struct AttachmentHandlersTests {
    static let data: [UInt8] = (0..<2003).map { UInt8(($0 * 7) % 256) }
    static let base64 = Data(data).base64EncodedString()

    func harness() async throws -> RouterHarness {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        return h
    }

    /// CouchDB's `md5-<base64>` of `bytes`: a scratch blob store's key for them.
    func digest(_ bytes: [UInt8]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("settee-md5-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try BlobStore(directory: directory).write(bytes).digest
    }

    @Test func inlineAttachmentReadsAsStubThenInline() async throws {
        let h = try await harness()
        let put = await h.send("PUT", "/db/a", json: ["_attachments": ["x.bin": [
            "content_type": "application/octet-stream", "data": .string(Self.base64)]]])
        #expect(put.status == 201)
        let stub = await h.send("GET", "/db/a").json["_attachments"]?["x.bin"]
        #expect(stub?["stub"] == true && stub?["length"] == 2003 && stub?["revpos"] == 1)
        #expect(stub?["digest"]?.stringValue == (try digest(Self.data)))
        let inline = await h.send("GET", "/db/a?attachments=true", headers: ["Accept": "application/json"])
        #expect(inline.json["_attachments"]?["x.bin"]?["data"]?.stringValue == Self.base64)
        #expect(inline.json["_attachments"]?["x.bin"]?["stub"] == nil)
    }

    @Test func badInlineInputIs400AndStoresNothing() async throws {
        let h = try await harness()
        let bad = await h.send("PUT", "/db/a", json: ["_attachments": ["x": ["data": "***"]]])
        #expect(bad.status == 400 && bad.json["error"] == "bad_request")
        // Padding past the last group, which Foundation's decoder takes and Erlang's refuses
        // (CouchDB 3.4.3, attachments_test.exs "errors for bad attachment").
        let padded = await h.send("PUT", "/db/a", json: ["_attachments": ["foo.txt": ["data": "notBase64Encoded="]]])
        #expect(padded.status == 400 && padded.json == ["error": "bad_request", "reason": "Invalid attachment data for foo.txt"])
        let underscore = await h.send("PUT", "/db/a", json: ["_attachments": ["_x": ["data": "YWJj"]]])
        #expect(underscore.status == 400)
        #expect(await h.send("PUT", "/db/b/_x", body: [1]).status == 400)
        // A design document's `_` name no handler routes reads as a missing attachment.
        #expect(await h.send("GET", "/db/_design/d/_foo").json["reason"] == "Document is missing attachment")
        #expect(await h.send("GET", "/db/a").status == 404)
        #expect(await h.send("GET", "/db/b").status == 404)
    }

    @Test func unknownStubIs412() async throws {
        let h = try await harness()
        let rev = try #require(await h.send("PUT", "/db/a", json: ["v": 1]).json["rev"])
        let reply = await h.send("PUT", "/db/a", json: ["_rev": rev, "_attachments": ["n": ["stub": true]]])
        #expect(reply.status == 412 && reply.json["error"] == "missing_stub")
    }

    /// A stub names `{name, revpos}` (couch_att:merge_stubs/2): another revpos is 412, as
    /// CouchDB 3.4.3 answers (attachments_test.exs, COUCHDB-809).
    @Test func stubWithAnotherRevposIs412() async throws {
        let h = try await harness()
        let put = await h.send("PUT", "/db/a", json: ["_attachments": ["f": ["data": "YWJj"]]])
        let rev = try #require(put.json["rev"])
        let wrong = await h.send("PUT", "/db/a", json: ["_rev": rev, "_attachments": ["f": ["stub": true, "revpos": 10]]])
        #expect(wrong.status == 412 && wrong.json == ["error": "missing_stub", "reason": "Invalid attachment stub in a for f"])
        let right = await h.send("PUT", "/db/a", json: ["_rev": rev, "_attachments": ["f": ["stub": true, "revpos": 1]]])
        #expect(right.status == 201)
    }

    @Test func standalonePutGetRangeAndDelete() async throws {
        let h = try await harness()
        let put = await h.send("PUT", "/db/doc/dir/f.bin", body: Self.data,
                               headers: ["Content-Type": "application/octet-stream"])
        #expect(put.status == 201 && put.json["id"] == "doc")
        let get = await h.send("GET", "/db/doc/dir/f.bin")
        #expect(get.status == 200 && get.body == Self.data)
        #expect(get.headers["Content-Length"] == "2003" && get.headers["Accept-Ranges"] == "bytes")
        let etag = try #require(get.headers["ETag"])
        #expect(await h.send("GET", "/db/doc/dir/f.bin", headers: ["If-None-Match": etag]).status == 304)
        // couch_httpd:etag_match/2 drops a weak `W/` prefix.
        #expect(await h.send("GET", "/db/doc/dir/f.bin", headers: ["If-None-Match": "W/" + etag]).status == 304)
        let range = await h.send("GET", "/db/doc/dir/f.bin", headers: ["Range": "bytes=10-19"])
        #expect(range.status == 206 && range.body == Array(Self.data[10..<20]))
        #expect(range.headers["Content-Range"] == "bytes 10-19/2003")
        let past = await h.send("GET", "/db/doc/dir/f.bin", headers: ["Range": "bytes=5000-6000"])
        #expect(past.status == 416 && past.json["error"] == "requested_range_not_satisfiable")
        // CouchDB's parse_ranges: `0-` is the whole attachment; several ranges are multipart.
        #expect(await h.send("GET", "/db/doc/dir/f.bin", headers: ["Range": "bytes=0-"]).status == 200)
        let two = await h.send("GET", "/db/doc/dir/f.bin", headers: ["Range": "bytes=0-1,-2"])
        #expect(two.status == 206)
        let boundary = try #require(two.headers["Content-Type"]?.split(separator: "\"").dropFirst().first)
        func part(_ range: String) -> [UInt8] {
            Array("\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes \(range)/2003\r\n\r\n".utf8)
        }
        let delimiter: [UInt8] = Array("--\(boundary)".utf8)
        var expected: [UInt8] = delimiter + part("0-1") + Self.data[0..<2] + [0x0D, 0x0A] + delimiter
        expected += part("2001-2002") + Self.data[2001...] + [0x0D, 0x0A] + delimiter + Array("--".utf8)
        #expect(two.body == expected)
        let rev = try #require(put.json["rev"]?.stringValue)
        #expect(await h.send("DELETE", "/db/doc/dir/f.bin").status == 409)
        let deleted = await h.send("DELETE", "/db/doc/dir/f.bin?rev=\(rev)")
        #expect(deleted.status == 200 && deleted.json["ok"] == true)
        #expect(await h.send("GET", "/db/doc/dir/f.bin").json == ["error": "not_found",
                                                                   "reason": "Document is missing attachment"])
    }

    /// chttpd_db:db_attachment_req/3 answers a DELETE 200 whatever `w` asks (CouchDB 3.4.3,
    /// attachments_test.exs "delete attachment" with w=3); a PUT with w=3 is 202 on one node.
    @Test func deleteIs200EvenWithAnUnmetQuorum() async throws {
        let h = try await harness()
        let put = await h.send("PUT", "/db/doc/a.txt?w=3", body: [1], headers: ["Content-Type": "text/plain"])
        #expect(put.status == 202)
        let rev = try #require(put.json["rev"]?.stringValue)
        #expect(await h.send("DELETE", "/db/doc/a.txt?w=3&rev=\(rev)").status == 200)
    }

    /// `atts_since` is read as couch_doc:parse_revs/1 reads it (CouchDB 3.4.3's answers).
    @Test func badAttsSinceIs400() async throws {
        let h = try await harness()
        #expect(await h.send("PUT", "/db/d", json: [:]).status == 201)
        let cases = ["bad": "invalid UTF-8 JSON", "1": "Invalid list of revisions", "%5B%22x%22%5D": "Invalid rev format",
                     "%5B1%5D": "Invalid rev format"]
        for (value, reason) in cases {
            let answer = await h.send("GET", "/db/d?atts_since=\(value)", headers: ["Accept": "application/json"])
            #expect(answer.status == 400 && answer.json == ["error": "bad_request", "reason": .string(reason)], "\(value)")
        }
        #expect(await h.send("GET", "/db/d?atts_since=%5B%221-abc%22%5D", headers: ["Accept": "application/json"]).status == 200)
    }

    @Test func compressibleAttachmentIsGzippedAndDecodedOnDemand() async throws {
        let h = try await harness()
        let text = Array(String(repeating: "compressible text ", count: 100).utf8)
        #expect(await h.send("PUT", "/db/doc/t.txt", body: text, headers: ["Content-Type": "text/plain"]).status == 201)
        let info = await h.send("GET", "/db/doc?att_encoding_info=true").json["_attachments"]?["t.txt"]
        #expect(info?["encoding"] == "gzip" && info?["length"] == .int(text.count))
        let plain = await h.send("GET", "/db/doc/t.txt")
        #expect(plain.body == text && plain.headers["Content-Encoding"] == nil)
        #expect(plain.headers["Content-Length"] == String(text.count))
        let gzipped = await h.send("GET", "/db/doc/t.txt", headers: ["Accept-Encoding": "gzip"])
        #expect(gzipped.headers["Content-Encoding"] == "gzip" && gzipped.body.count < text.count)
        #expect(gzipped.headers["Content-Length"] == String(gzipped.body.count))
    }

    static func related(_ json: String, _ parts: [[UInt8]], close: Bool = true) -> [UInt8] {
        var body = Array("--B\r\nContent-Type: application/json\r\n\r\n\(json)".utf8)
        for part in parts { body += Array("\r\n--B\r\n\r\n".utf8) + part }
        return body + Array((close ? "\r\n--B--" : "").utf8)
    }

    @Test func multipartPutThenMultipartGet() async throws {
        let h = try await harness()
        let json = #"{"v":1,"_attachments":{"a.bin":{"follows":true,"content_type":"application/octet-stream","length":2003},"b.txt":{"follows":true,"content_type":"text/plain","length":5}}}"#
        let put = await h.send("PUT", "/db/mp", body: Self.related(json, [Self.data, Array("hello".utf8)]),
                               headers: ["Content-Type": "multipart/related; boundary=\"B\""])
        #expect(put.status == 201)
        #expect(await h.send("GET", "/db/mp/a.bin").body == Self.data)
        #expect(await h.send("GET", "/db/mp/b.txt").text == "hello")
        let get = await h.send("GET", "/db/mp?attachments=true", headers: ["Accept": "multipart/related"])
        #expect(get.headers["Content-Type"]?.hasPrefix("multipart/related") == true)
        #expect(get.headers["Content-Length"] == String(get.body.count))
        #expect(get.text.contains(#""follows":true"#) && get.text.contains("Content-Encoding: gzip"))
    }

    @Test func multipartWithBadPartsStoresNothing() async throws {
        let h = try await harness()
        let json = #"{"_attachments":{"a":{"follows":true,"length":3}}}"#
        let headers: HTTPHeaders = ["Content-Type": "multipart/related; boundary=\"B\""]
        // A missing or short part is worded as CouchDB 3.4.3's couch_att words it.
        let shorter: JSONValue = ["error": "bad_request", "reason": "attachment shorter than expected"]
        #expect(await h.send("PUT", "/db/x", body: Self.related(json, []), headers: headers).json == shorter)
        #expect(await h.send("PUT", "/db/x", body: Self.related(json, [[1, 2, 3], [4]]), headers: headers).status == 400)
        #expect(await h.send("PUT", "/db/x", body: Self.related(json, [[1, 2]]), headers: headers).json == shorter)
        let longer = await h.send("PUT", "/db/x", body: Self.related(json, [[1, 2, 3, 4]]), headers: headers)
        #expect(longer.json == ["error": "bad_request", "reason": "attachment longer than expected"])
        #expect(await h.send("PUT", "/db/x", body: Self.related(json, [[1, 2, 3]], close: false),
                             headers: headers).status == 400)
        #expect(await h.send("GET", "/db/x").status == 404)
        #expect(await h.send("PUT", "/db/x", body: Self.related(json, [[1, 2, 3]]), headers: headers).status == 201)
    }

    @Test func openRevsNestsRelatedPartsForAttachments() async throws {
        let h = try await harness()
        _ = await h.send("PUT", "/db/a", json: ["_attachments": ["x.bin": ["data": .string(Self.base64)]]])
        let reply = await h.send("GET", "/db/a?open_revs=all&revs=true", headers: ["Accept": "multipart/mixed"])
        #expect(reply.headers["Content-Type"]?.hasPrefix("multipart/mixed") == true)
        #expect(reply.text.contains("Content-Type: multipart/related; boundary="))
        #expect(reply.text.contains(#"Content-Disposition: attachment; filename="x.bin""#))
        #expect(reply.body.count > Self.data.count)
    }
}
