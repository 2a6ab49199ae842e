@testable import SetteeServer
import SetteeJSON
import Testing

/// Continuous and eventsource feeds share encoded lines between feeds that ask the
/// same thing at the same sequence; these check that sharing never mixes up feeds
/// that ask different things, nor answers from before a write. A feed with
/// `timeout` (and no heartbeat) sends what it has and ends, so no test sleeps.
@Suite struct ChangesFeedTests {
    private func harness(docs: [String]) async throws -> RouterHarness {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        for id in docs { _ = await h.send("PUT", "/db/\(id)", json: ["v": 1]) }
        return h
    }

    private func lines(_ reply: RouterHarness.Reply) -> [JSONValue] {
        reply.text.split(separator: "\n").compactMap { try? JSONReader.parse(Array($0.utf8)) }
    }

    @Test func includeDocsAndPlainFeedsDoNotShareLines() async throws {
        let h = try await harness(docs: ["a"])
        let withDocs = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1&include_docs=true"))
        let plain = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1"))
        #expect(withDocs.first?["doc"]?["v"] == 1)
        #expect(plain.first?["id"] == "a")
        #expect(plain.first?["doc"] == nil)
        #expect(plain.last?["last_seq"]?.seqNumber == 1)
    }

    @Test func eventsourceAndContinuousDoNotShareLines() async throws {
        let h = try await harness(docs: ["a"])
        let continuous = await h.send("GET", "/db/_changes?feed=continuous&timeout=1")
        let eventsource = await h.send("GET", "/db/_changes?feed=eventsource&timeout=1")
        let seq = SequenceToken.json(1)
        #expect(continuous.text.hasPrefix("{\"seq\":\(seq),"))
        #expect(eventsource.text.hasPrefix("data: {\"seq\":\(seq),"))
        #expect(eventsource.text.contains("id: \(seq)\n"))
    }

    @Test func designFilterAndAllDocsStyleDoNotShareLines() async throws {
        let h = try await harness(docs: ["a", "_design/d"])
        _ = await h.send("PUT", "/db/a?new_edits=false", json: ["_id": "a", "_rev": "1-ff", "v": 2])
        let all = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1&style=all_docs"))
        let design = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1&filter=_design"))
        let plain = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1"))
        #expect(all.first { $0["id"] == "a" }?["changes"]?.arrayValue?.count == 2)
        #expect(design.dropLast().map { $0["id"] } == ["_design/d"])
        #expect(plain.first { $0["id"] == "a" }?["changes"]?.arrayValue?.count == 1)
    }

    /// Lines kept for since=0 at one sequence must not answer a feed that starts after a later write.
    @Test func aWriteIsNeverHiddenByKeptLines() async throws {
        let h = try await harness(docs: ["a"])
        let before = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1"))
        _ = await h.send("PUT", "/db/b", json: ["v": 1])
        let after = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1"))
        #expect(before.dropLast().map { $0["id"] } == ["a"])
        #expect(after.dropLast().map { $0["id"] } == ["a", "b"])
        #expect(after.last?["last_seq"]?.seqNumber == 2)
    }

    /// `limit` is part of what is shared: a feed with limit=1 gets one line, not a kept page of two.
    @Test func limitIsPartOfTheSharedKey() async throws {
        let h = try await harness(docs: ["a", "b"])
        let full = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1"))
        let limited = lines(await h.send("GET", "/db/_changes?feed=continuous&timeout=1&limit=1"))
        #expect(full.count == 3)
        #expect(limited.map { $0["id"] ?? $0["last_seq"].flatMap(\.seqNumber).map { .int($0) } } == ["a", 1])
    }
}
