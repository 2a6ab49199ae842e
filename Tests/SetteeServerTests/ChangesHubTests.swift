@testable import SetteeServer
import SetteeJSON
import Testing

/// `ChangesHub` shares feed lines per database object and sequence.
@Suite struct ChangesHubTests {
    /// A database deleted and created again reaches the same sequence with other
    /// documents: its feeds must not be answered with the old database's lines.
    @Test func aRecreatedDatabaseNeverGetsItsPredecessorsLines() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        _ = await h.send("PUT", "/db/old", json: ["v": 1])
        let first = await h.send("GET", "/db/_changes?feed=continuous&timeout=1")
        #expect(first.text.contains("\"id\":\"old\""))
        _ = await h.send("DELETE", "/db")
        _ = await h.send("PUT", "/db")
        _ = await h.send("PUT", "/db/new", json: ["v": 1])
        let second = await h.send("GET", "/db/_changes?feed=continuous&timeout=1")
        #expect(second.text.contains("\"id\":\"new\""))
        #expect(!second.text.contains("\"id\":\"old\""))
    }

    @Test func feedKinds() throws {
        #expect(try ChangesFeedKind(parameter: nil) == .normal)
        #expect(try ChangesFeedKind(parameter: "live") == .continuous)
        #expect(try ChangesFeedKind(parameter: "eventsource") == .eventsource)
        #expect(throws: CouchError.self) { try ChangesFeedKind(parameter: "Continuous") }
    }
}
