import SetteeHTTP
import SetteeJSON
import Testing

/// `_purge` and `_purged_infos` as CouchDB 3.4.3 answers them (purge_test.exs).
@Suite struct PurgeHandlersTests {
    /// fabric_db_purged_infos gathers the infos into a set: purging the same id and revs
    /// twice lists them once; another purge of a missing document is listed.
    @Test func purgedInfosListARepeatedPurgeOnce() async throws {
        let h = try RouterHarness()
        #expect(await h.send("PUT", "/db").status == 201)
        let rev = try #require(await h.send("PUT", "/db/a", json: [:]).json["rev"])
        #expect(await h.send("POST", "/db/_purge", json: ["a": [rev]]).status == 201)
        #expect(await h.send("POST", "/db/_purge", json: ["a": [rev]]).status == 201)
        #expect(await h.send("POST", "/db/_purge", json: ["nope": ["1-abc"]]).status == 201)
        let infos = await h.send("GET", "/db/_purged_infos").json["purged_infos"]
        #expect(infos == [["id": "a", "revs": [rev]], ["id": "nope", "revs": ["1-abc"]]])
    }
}
