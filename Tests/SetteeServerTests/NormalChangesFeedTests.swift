import SetteeJSON
import Testing

/// The normal feed is streamed a page (`NormalChangesFeed.pageSize` changes) at a
/// time; a feed longer than a page must read like one built whole.
@Suite struct NormalChangesFeedTests {
    /// 2,500 documents: two full pages and a short one.
    private func harness() async throws -> RouterHarness {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let docs: [JSONValue] = (0..<2500).map { ["_id": .string("d\($0)"), "n": .int($0)] }
        _ = await h.send("POST", "/db/_bulk_docs", json: ["docs": .array(docs)])
        return h
    }

    private func body(_ reply: RouterHarness.Reply) throws -> JSONValue { try JSONReader.parse(Array(reply.text.utf8)) }

    @Test func everyChangeOnceInSeqOrderAcrossPages() async throws {
        let h = try await harness()
        let feed = try body(await h.send("GET", "/db/_changes"))
        let seqs = feed["results"]?.arrayValue?.compactMap { $0["seq"]?.seqNumber } ?? []
        #expect(seqs == Array(1...2500))
        #expect(feed["last_seq"]?.seqNumber == 2500 && feed["pending"] == 0)
    }

    @Test func limitAndSinceAcrossAPageBoundary() async throws {
        let h = try await harness()
        let feed = try body(await h.send("GET", "/db/_changes?since=900&limit=1200"))
        let seqs = feed["results"]?.arrayValue?.compactMap { $0["seq"]?.seqNumber } ?? []
        #expect(seqs == Array(901...2100))
        #expect(feed["last_seq"]?.seqNumber == 2100 && feed["pending"] == 400)
    }

    @Test func selectorFilterScansEveryPage() async throws {
        let h = try await harness()
        let feed = try body(await h.send("POST", "/db/_changes?filter=_selector",
                                         json: ["selector": ["n": ["$in": [5, 1500, 2499]]]]))
        #expect(feed["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d5", "d1500", "d2499"])
        #expect(feed["last_seq"]?.seqNumber == 2500)
    }
}
