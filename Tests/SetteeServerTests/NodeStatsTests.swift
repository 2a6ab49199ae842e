import SetteeHTTP
import SetteeJSON
@testable import SetteeServer
import Testing

/// `_stats` counts every way a document is written or read, not only `PUT` and `GET`.
@Suite struct NodeStatsTests {
    static func counter(_ h: RouterHarness, _ name: String) async -> Int {
        await h.send("GET", "/_node/_local/_stats/couchdb/\(name)").json["value"]?.intValue ?? -1
    }

    @Test func everyWritePathAndAttachmentReadsAreCounted() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let writes = await Self.counter(h, "document_writes"), inserts = await Self.counter(h, "document_inserts")
        let changes = await Self.counter(h, "database_writes"), reads = await Self.counter(h, "database_reads")
        let created = await h.send("PUT", "/db/doc", json: ["a": 1])
        let rev1 = try #require(created.json["rev"]?.stringValue)
        let attached = await h.send("PUT", "/db/doc/note.txt?rev=\(rev1)", body: Array("hello".utf8),
                                    headers: ["Content-Type": "text/plain"])
        let rev2 = try #require(attached.json["rev"]?.stringValue, "\(attached.text)")
        #expect(await h.send("GET", "/db/doc/note.txt").status == 200)
        #expect(await h.send("DELETE", "/db/doc?rev=\(rev2)").status == 200)
        #expect(await Self.counter(h, "document_writes") == writes + 3)
        #expect(await Self.counter(h, "document_inserts") == inserts + 1)
        #expect(await Self.counter(h, "database_writes") == changes + 3)
        #expect(await Self.counter(h, "database_reads") == reads + 1)
        // A conflict writes nothing.
        #expect(await h.send("PUT", "/db/other", json: ["_rev": "1-0123456789abcdef0123456789abcdef"]).status == 409)
        #expect(await Self.counter(h, "document_writes") == writes + 3)
    }
}
