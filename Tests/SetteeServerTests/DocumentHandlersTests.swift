import SetteeHTTP
import SetteeJSON
import Testing

@Suite struct DocumentHandlersTests {
    func harnessWithDB() async throws -> RouterHarness {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        return h
    }

    @Test func putGetUpdateDeleteLifecycle() async throws {
        let h = try await harnessWithDB()
        let created = await h.send("PUT", "/db/doc", json: ["a": 1])
        #expect(created.status == 201)
        let rev1 = try #require(created.json["rev"]?.stringValue)
        #expect(rev1.hasPrefix("1-") && rev1.count == 34)
        #expect(created.headers["ETag"] == "\"\(rev1)\"")
        #expect(created.headers["Location"] == "/db/doc")

        let read = await h.send("GET", "/db/doc")
        #expect(read.text == #"{"_id":"doc","_rev":"\#(rev1)","a":1}"# + "\n")

        #expect(await h.send("PUT", "/db/doc", json: ["a": 2]).json["error"] == "conflict")
        let updated = await h.send("PUT", "/db/doc", json: ["_rev": .string(rev1), "a": 2])
        let rev2 = try #require(updated.json["rev"]?.stringValue)
        #expect(rev2.hasPrefix("2-"))
        #expect(await h.send("PUT", "/db/doc", json: ["_rev": .string(rev1), "a": 3]).status == 409)

        #expect(await h.send("DELETE", "/db/doc").status == 409)
        let deleted = await h.send("DELETE", "/db/doc?rev=\(rev2)")
        #expect(deleted.status == 200)
        let gone = await h.send("GET", "/db/doc")
        #expect(gone.status == 404)
        #expect(gone.json == ["error": "not_found", "reason": "deleted"])
        #expect(await h.send("GET", "/db/never").json == ["error": "not_found", "reason": "missing"])
    }

    @Test func sameEditGivesSameRevision() async throws {
        let h = try await harnessWithDB()
        #expect(await h.send("PUT", "/db2").status == 201)
        let a = await h.send("PUT", "/db/x", json: ["v": "same"]).json["rev"]
        let b = await h.send("PUT", "/db2/x", json: ["v": "same"]).json["rev"]
        #expect(a == b)
    }

    @Test func etagAndIfNoneMatch() async throws {
        let h = try await harnessWithDB()
        let rev = await h.send("PUT", "/db/d", json: [:]).json["rev"]?.stringValue ?? ""
        let r = await h.send("GET", "/db/d", headers: ["If-None-Match": "\"\(rev)\""])
        #expect(r.status == 304)
        #expect(r.body.isEmpty)
    }

    /// couch_httpd:etag_match/2: the header is split on commas and spaces and each token's
    /// `W/` is dropped (etags_head_test.exs "etags head"); `*` is no match in CouchDB 3.4.3.
    @Test func ifNoneMatchWeakAndListedTags() async throws {
        let h = try await harnessWithDB()
        let rev = await h.send("PUT", "/db/d", json: [:]).json["rev"]?.stringValue ?? ""
        for header in ["W/\"\(rev)\"", "\"zz\", \"\(rev)\"", "\"zz\",W/\"\(rev)\""] {
            #expect(await h.send("GET", "/db/d", headers: ["If-None-Match": header]).status == 304)
        }
        #expect(await h.send("GET", "/db/d", headers: ["If-None-Match": "*"]).status == 200)
        #expect(await h.send("PUT", "/db/_local/l", json: [:]).status == 201)
        #expect(await h.send("GET", "/db/_local/l", headers: ["If-None-Match": "*"]).status == 200)
    }

    @Test func badSpecialMembersAndIds() async throws {
        let h = try await harnessWithDB()
        let foo = await h.send("PUT", "/db/d", json: ["_foo": 1])
        #expect(foo.status == 400)
        #expect(foo.json == ["error": "doc_validation", "reason": "Bad special document member: _foo"])
        // CouchDB 3.4.3 words an `_attachments` that is not an object the same way.
        for value: JSONValue in [1, "x", [], .null] {
            let r = await h.send("PUT", "/db/a", json: ["_attachments": value])
            #expect(r.json == ["error": "doc_validation", "reason": "Bad special document member: _attachments"])
        }
        #expect(await h.send("PUT", "/db/_bad", json: [:]).json["error"] == "illegal_docid")
        #expect(await h.send("PUT", "/db/d", body: Array("{not json".utf8)).json
            == ["error": "bad_request", "reason": "invalid UTF-8 JSON"])
        #expect(await h.send("PUT", "/db/d", json: [1, 2]).status == 400)
        #expect(await h.send("PUT", "/db/d", json: ["_rev": "bogus"]).status == 400)
        #expect(await h.send("GET", "/db/d").status == 404, "nothing was stored by the bad writes")
    }

    static let topSig = String(repeating: "f", count: 32)

    @Test func revsRevsInfoAndConflicts() async throws {
        let h = try await harnessWithDB()
        let rev1 = await h.send("PUT", "/db/d", json: ["n": 1]).json["rev"]?.stringValue ?? ""
        let rev2 = await h.send("PUT", "/db/d?rev=\(rev1)", json: ["n": 2]).json["rev"]?.stringValue ?? ""
        let conflict = await h.send("PUT", "/db/d?new_edits=false",
                                    json: ["_rev": .string("2-" + Self.topSig), "_revisions": ["start": 2, "ids": [.string(Self.topSig), .string(String(rev1.dropFirst(2)))]]])
        #expect(conflict.status == 201)
        let r = await h.send("GET", "/db/d?revs=true&revs_info=true&conflicts=true")
        // All-`f` hex is the greatest 16 bytes there are, so it wins; rev2 is the conflict.
        #expect(r.json["_rev"] == .string("2-" + Self.topSig))
        #expect(r.json["_conflicts"] == [.string(rev2)])
        #expect(r.json["_revisions"]?["start"] == 2)
        #expect(r.json["_revisions"]?["ids"]?.arrayValue?.count == 2)
        #expect(r.json["_revs_info"]?.arrayValue?.count == 2)
        let all = await h.send("GET", "/db/d?open_revs=all", headers: ["Accept": "application/json"])
        #expect(all.json.arrayValue?.count == 2)
        let some = await h.send("GET", "/db/d?open_revs=%5B%22\(rev2)%22,%229-abc%22%5D", headers: ["Accept": "application/json"])
        #expect(some.json.arrayValue?[1] == ["missing": "9-abc"])
    }

    @Test func putWithoutRevOnDeletedDocExtendsTombstone() async throws {
        let h = try await harnessWithDB()
        let rev1 = await h.send("PUT", "/db/d", json: [:]).json["rev"]?.stringValue ?? ""
        let rev2 = await h.send("DELETE", "/db/d?rev=\(rev1)").json["rev"]?.stringValue ?? ""
        #expect(await h.send("PUT", "/db/d", json: ["_rev": .string(rev2)]).status == 409)
        let again = await h.send("PUT", "/db/d", json: ["back": true])
        #expect(again.status == 201)
        #expect(again.json["rev"]?.stringValue?.hasPrefix("3-") == true)
    }

    @Test func localDocumentsHaveNoHistory() async throws {
        let h = try await harnessWithDB()
        #expect(await h.send("PUT", "/db/_local/x", json: ["a": 1]).json["rev"] == "0-1")
        #expect(await h.send("PUT", "/db/_local/x", json: ["_rev": "0-99"]).json["rev"] == "0-100")
        #expect(await h.send("GET", "/db/_local/x").json["_id"] == "_local/x")
        #expect(await h.send("GET", "/db/_all_docs").json["rows"] == [])
        #expect(await h.send("DELETE", "/db/_local/x?rev=0-100").status == 200)
        #expect(await h.send("GET", "/db/_local/x").status == 404)
    }

    @Test func copyToNewAndExistingDocument() async throws {
        let h = try await harnessWithDB()
        _ = await h.send("PUT", "/db/src", json: ["v": 1])
        let copied = await h.send("COPY", "/db/src", headers: ["Destination": "dst"])
        #expect(copied.status == 201)
        #expect(await h.send("GET", "/db/dst").json["v"] == 1)
        let dstRev = copied.json["rev"]?.stringValue ?? ""
        #expect(await h.send("COPY", "/db/src", headers: ["Destination": "dst"]).status == 409)
        #expect(await h.send("COPY", "/db/src", headers: ["Destination": "dst?rev=\(dstRev)"]).status == 201)
    }

    /// rev_stemming_test.exs "revs limit is kept after compaction": a lowered `_revs_limit`
    /// cuts `_revisions` on the next read, before any write (couch_db:make_doc/5);
    /// `_revs_info` keeps the whole path, as CouchDB 3.4.3 answers.
    @Test func lowerRevsLimitCutsRevisionsOnRead() async throws {
        let h = try await harnessWithDB()
        var rev = await h.send("PUT", "/db/d", json: [:]).json["rev"]?.stringValue ?? ""
        for _ in 1..<6 { rev = await h.send("PUT", "/db/d", json: ["_rev": .string(rev)]).json["rev"]?.stringValue ?? "" }
        #expect(await h.send("PUT", "/db/_revs_limit", body: Array("3".utf8)).status == 200)
        let read = await h.send("GET", "/db/d?revs=true&revs_info=true").json
        #expect(read["_revisions"]?["ids"]?.arrayValue?.count == 3)
        #expect(read["_revs_info"]?.arrayValue?.count == 6)
        let open = await h.send("GET", "/db/d?open_revs=all&revs=true", headers: ["Accept": "application/json"]).json
        #expect(open.arrayValue?.first?["ok"]?["_revisions"]?["ids"]?.arrayValue?.count == 3)
        let bulk = await h.send("POST", "/db/_bulk_get?revs=true",
                                json: ["docs": .array([.object(["id": "d", "rev": .string(rev)])])]).json
        let found = bulk["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]
        #expect(found?["_revisions"]?["ids"]?.arrayValue?.count == 3)
    }

    /// invalid_docids_test.exs "_local-prefixed ids are illegal": `_local%2F` is the bare
    /// `_local` prefix, refused with CouchDB's own words for every method.
    @Test func bareLocalPrefixIsRefused() async throws {
        let h = try await harnessWithDB()
        for method in ["PUT", "GET", "DELETE", "POST", "COPY"] {
            let r = await h.send(method, "/db/_local%2F", json: [:], headers: ["Destination": "x"])
            #expect(r.json == ["error": "bad_request", "reason": "Invalid _local document id."])
        }
    }

    /// copy_doc_test.exs neighbourhood, as CouchDB 3.4.3 answers: an empty Destination is an
    /// empty id; the rev after `?` is read whatever its key; a copy to `_local/` has an
    /// ETag and a Location like any copy.
    @Test func copyDestinationDetails() async throws {
        let h = try await harnessWithDB()
        _ = await h.send("PUT", "/db/src", json: ["v": 1])
        let empty = await h.send("COPY", "/db/src", headers: ["Destination": ""])
        #expect(empty.json == ["error": "illegal_docid", "reason": "Document id must not be empty"])
        let badRev = await h.send("COPY", "/db/src", headers: ["Destination": "x?foo=bar"])
        #expect(badRev.status == 400 && badRev.json["reason"] == "Invalid rev format")
        let local = await h.send("COPY", "/db/src", headers: ["Destination": "_local/y"])
        #expect(local.status == 201 && local.headers["ETag"] == "\"0-1\"")
        #expect(local.headers["Location"]?.hasSuffix("/db/_local%2Fy") == true)
    }

    /// copy_doc_test.exs: an absolute Destination is refused, nothing written.
    @Test func copyToAbsoluteURLIsRefused() async throws {
        let h = try await harnessWithDB()
        _ = await h.send("PUT", "/db/src", json: ["v": 1])
        let r = await h.send("COPY", "/db/src", headers: ["Destination": "http://localhost:5984/db/dst"])
        #expect(r.status == 400)
        #expect(r.json == ["error": "bad_request", "reason": "Destination URL must be relative."])
    }

    @Test func slashInDocumentIDIsKept() async throws {
        let h = try await harnessWithDB()
        #expect(await h.send("PUT", "/db/a%2Fb", json: [:]).status == 201)
        #expect(await h.send("GET", "/db/a%2Fb").json["_id"] == "a/b")
        #expect(await h.send("PUT", "/db/_design/app", json: ["views": [:]]).status == 201)
        #expect(await h.send("GET", "/db/_design/app").json["_id"] == "_design/app")
        #expect(await h.send("GET", "/db/_design/app/_view/v").json["reason"] == "missing_named_view")
    }
}
