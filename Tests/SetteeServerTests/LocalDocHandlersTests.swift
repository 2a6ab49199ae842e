import SetteeHTTP
import SetteeJSON
import Testing

/// `LocalDocHandlers`: `_local_docs` ranges as CouchDB 3.4.3 reads them.
@Suite struct LocalDocHandlersTests {
    func harnessWithLocals() async throws -> RouterHarness {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        for name in ["a", "b", "c"] { #expect(await h.send("PUT", "/db/_local/\(name)", json: [:]).status == 201) }
        return h
    }

    func ids(_ h: RouterHarness, _ query: String) async -> [String] {
        let rows = await h.send("GET", "/db/_local_docs?" + query).json["rows"]?.arrayValue ?? []
        return rows.compactMap { $0["id"]?.stringValue }
    }

    /// Bounds are whole ids, prefix and all (local_docs_test.exs' keys; CouchDB compares
    /// `_local/b` with the stored `_local/...` ids).
    @Test func rangeBoundsAreWholeIDs() async throws {
        let h = try await harnessWithLocals()
        #expect(await ids(h, "startkey=%22_local/b%22") == ["_local/b", "_local/c"])
        #expect(await ids(h, "key=%22_local/a%22") == ["_local/a"])
        #expect(await ids(h, "start_key=%22_local/b%22&end_key=%22_local/c%22&inclusive_end=false") == ["_local/b"])
        #expect(await ids(h, "endkey=%22_local/b%22&descending=true") == ["_local/c", "_local/b"])
        // Bounds outside the `_local/` ids: "a" sorts before them all, "z" after.
        #expect(await ids(h, "startkey=%22a%22").isEmpty)
        #expect(await ids(h, "endkey=%22a%22") == ["_local/a", "_local/b", "_local/c"])
        #expect(await ids(h, "startkey=%22A%22") == ["_local/a", "_local/b", "_local/c"])
    }

    /// `update_seq=true` on `_local_docs`: a null `update_seq` member (CouchDB 3.4.3).
    @Test func updateSeqIsNull() async throws {
        let h = try await harnessWithLocals()
        let body = await h.send("GET", "/db/_local_docs?update_seq=true").json
        #expect(body.objectValue?.keys.contains("update_seq") == true && body["update_seq"] == .null)
    }

    /// batch_save_test.exs' `?batch=ok`, on a local document: 202 `{"ok":true,"id":..}`, no rev.
    @Test func batchWriteIsAccepted() async throws {
        let h = try await harnessWithLocals()
        let r = await h.send("PUT", "/db/_local/n?batch=ok", json: ["v": 1])
        #expect(r.status == 202 && r.json == ["ok": true, "id": "_local/n"])
        #expect(await h.send("GET", "/db/_local/n").json["v"] == 1)
    }

    /// `POST /{db}/_local_docs/queries`: one `_local_docs` answer per query (CouchDB 3.4.3).
    @Test func queriesAnswerEachQuery() async throws {
        let h = try await harnessWithLocals()
        let r = await h.send("POST", "/db/_local_docs/queries",
                             json: ["queries": [["limit": 1], ["keys": ["_local/c", "_local/z"]]]])
        #expect(r.status == 200)
        let results = r.json["results"]?.arrayValue ?? []
        #expect(results.count == 2)
        #expect(results.first?["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["_local/a"])
        #expect(results.last?["rows"]?.arrayValue?.last?["error"] == "not_found")
        #expect(await h.send("POST", "/db/_local_docs/queries", json: [:]).status == 400)
    }

    /// CouchDB 3.4.3 on local revs: `GET ?rev=` is 404 (400 when it does not parse), and a
    /// `_rev` that does not parse is 400 "Invalid rev format".
    @Test func revsThatDoNotParseAreRefused() async throws {
        let h = try await harnessWithLocals()
        #expect(await h.send("GET", "/db/_local/a?rev=0-1").json == ["error": "not_found", "reason": "missing"])
        #expect(await h.send("GET", "/db/_local/a?rev=bad").json == ["error": "bad_request", "reason": "Invalid rev format"])
        for rev in ["bad", "", "abc-1", "-1"] {
            let r = await h.send("PUT", "/db/_local/n", json: ["_rev": .string(rev)])
            #expect(r.json == ["error": "bad_request", "reason": "Invalid rev format"])
        }
        #expect(await h.send("GET", "/db/_local/n").status == 404)
    }

    /// A PUT answers with a Location and the ETag a GET then sends; a POST with a Location
    /// (CouchDB 3.4.3).
    @Test func writesAnswerWithLocationAndETag() async throws {
        let h = try await harnessWithLocals()
        let put = await h.send("PUT", "/db/_local/t", json: ["v": 1])
        #expect(put.headers["Location"]?.hasSuffix("/db/_local%2Ft") == true)
        let tag = try #require(put.headers["ETag"])
        #expect(await h.send("GET", "/db/_local/t").headers["ETag"] == tag)
        let post = await h.send("POST", "/db", json: ["_id": "_local/p"])
        #expect(post.status == 201 && post.headers["Location"]?.hasSuffix("/db/_local%2Fp") == true)
    }

    /// A write with `_deleted: true`: a PUT is 200, a POST 201, and a missing document is
    /// no error ("0-0"); a DELETE of a missing one stays 404 (CouchDB 3.4.3).
    @Test func deletingWrites() async throws {
        let h = try await harnessWithLocals()
        let put = await h.send("PUT", "/db/_local/a", json: ["_deleted": true])
        #expect(put.status == 200 && put.json["rev"] == "0-0")
        #expect(await h.send("GET", "/db/_local/a").status == 404)
        #expect(await h.send("PUT", "/db/_local/miss", json: ["_deleted": true]).status == 200)
        #expect(await h.send("POST", "/db", json: ["_id": "_local/miss2", "_deleted": true]).status == 201)
        #expect(await h.send("DELETE", "/db/_local/miss3").status == 404)
    }
}
