import Foundation
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// `_replicator` documents on a real server: a continuous one survives a kill -9
/// of the server; one this server cannot run is marked failed while the others go on.
@Suite(.serialized) struct ReplicatorDatabaseTests {
    /// The `_replicator` document once `field` is `value`, woken by that database's longpoll feed.
    private func waitFor(_ server: RemoteServer, doc: String, _ field: String, _ value: String) async throws -> JSONValue {
        for _ in 0..<30 {
            let current = try await server.request("GET", "/_replicator/\(doc)").json
            if current[field]?.stringValue == value { return current }
            let since = try await server.request("GET", "/_replicator").json["update_seq"]?.stringValue ?? "0"
            try await server.request("GET", "/_replicator/_changes?feed=longpoll&timeout=2000&since=\(since)")
        }
        return try await server.request("GET", "/_replicator/\(doc)").json
    }

    @Test func aContinuousDocumentSurvivesAKilledServer() async throws {
        let server = try RemoteServer()
        #expect(try await server.request("PUT", "/src").status == 201)
        #expect(try await server.request("PUT", "/src/first", json: ["n": 1]).status == 201)
        let body: JSONValue = ["source": .string(server.url("src")), "target": .string(server.url("dst")),
                               "continuous": true, "create_target": true]
        #expect(try await server.request("PUT", "/_replicator/live", json: body).status == 201)
        #expect(try await server.waitForDocuments("dst", count: 1))
        let port = try #require(server.process.baseURL.port)
        try server.restart(kill: SIGKILL, port: port)
        #expect(try await server.request("PUT", "/src/second", json: ["n": 2]).status == 201)
        #expect(try await server.waitForDocuments("dst", count: 2))
        let status = try await server.request("GET", "/_scheduler/docs/_replicator/live").json
        #expect(status["state"] == "running" && status["doc_id"] == "live")
        // CouchDB's counters, and Settee's own figures beside them. The document is readable
        // as soon as its write commits, the job's counters a moment later (after its chunk):
        // asked until they show it (bounded; a longpoll on the target paces the asking).
        var job = try #require(try await server.request("GET", "/_scheduler/jobs").json["jobs"]?.arrayValue?.first)
        for _ in 0..<50 where job["info"]?["docs_written"]?.intValue != 1 {
            try await server.request("GET", "/dst/_changes?feed=longpoll&timeout=100&since=now")
            job = try #require(try await server.request("GET", "/_scheduler/jobs").json["jobs"]?.arrayValue?.first)
        }
        #expect(job["doc_id"] == "live" && job["info"]?["docs_written"]?.intValue == 1, "\(job)")
        #expect((job["info"]?["last_page_lag_ms"]?.doubleValue ?? -1) >= 0)
        #expect(job["info"]?["docs_per_second"]?.doubleValue != nil)
        // Deleting the document stops the job.
        let rev = try await server.request("GET", "/_replicator/live").json["_rev"]?.stringValue ?? ""
        #expect(try await server.request("DELETE", "/_replicator/live?rev=\(rev)").status == 200)
        // The manager drops the job when it reads the deletion: check until it has (bounded).
        var gone = false
        for _ in 0..<100 where !gone {
            gone = try await server.request("GET", "/_scheduler/docs/_replicator/live").status == 404
            if !gone { try await server.request("GET", "/_replicator/_changes?feed=longpoll&timeout=100&since=now") }
        }
        #expect(gone)
    }

    @Test func aDocumentThatCannotRunFailsAndTheOthersGoOn() async throws {
        let server = try RemoteServer()
        #expect(try await server.request("PUT", "/src").status == 201)
        // Stored (the write rule leaves filters to the job), then failed: not `ddoc/name`.
        let malformed: JSONValue = ["source": .string(server.url("src")), "target": .string(server.url("x")),
                                    "filter": "noslash"]
        #expect(try await server.request("PUT", "/_replicator/picky", json: malformed).status == 201)
        // A filter the source lacks: CouchDB's `error` state, retried, not `failed`.
        let unfetchable: JSONValue = ["source": .string(server.url("src")), "target": .string(server.url("y")),
                                      "filter": "app/byType"]
        #expect(try await server.request("PUT", "/_replicator/nofilter", json: unfetchable).status == 201)
        let good: JSONValue = ["source": .string(server.url("src")), "target": .string(server.url("ok")),
                               "create_target": true]
        #expect(try await server.request("PUT", "/src/doc", json: ["n": 1]).status == 201)
        #expect(try await server.request("PUT", "/_replicator/good", json: good).status == 201)
        let failed = try await waitFor(server, doc: "picky", "_replication_state", "failed")
        #expect(failed["_replication_state_reason"]?.stringValue?.contains("filter") == true)
        let completed = try await waitFor(server, doc: "good", "_replication_state", "completed")
        #expect(completed["_replication_stats"]?["docs_written"] == 1)
        // The manager tries the filtered one at once; checked until it has (bounded).
        var nofilter = try await server.request("GET", "/_scheduler/docs/_replicator/nofilter").json
        for _ in 0..<50 where nofilter["state"]?.stringValue != "error" {
            try await server.request("GET", "/_replicator/_changes?feed=longpoll&timeout=100&since=now")
            nofilter = try await server.request("GET", "/_scheduler/docs/_replicator/nofilter").json
        }
        #expect(nofilter["state"]?.stringValue == "error")
        #expect(nofilter["info"]?["error"]?.stringValue?.contains("filter") == true)
    }

    @Test func aServerWithContinuousReplicationsStopsPromptly() async throws {
        let source = try RemoteServer(), target = try RemoteServer()
        #expect(try await source.request("PUT", "/src").status == 201)
        for i in 0..<5 {
            #expect(try await target.request("POST", "/_replicate", json: [
                "source": .string(source.url("src")), "target": .string(target.url("dst\(i)")),
                "continuous": true, "create_target": true]).status == 202)
        }
        // The source goes away for good: the jobs are retrying when the target is told to stop.
        source.process.kill(SIGKILL)
        _ = try source.process.waitForExit()
        target.process.kill(SIGTERM)
        #expect(try target.process.waitForExit(timeout: 10) == 0)
    }
}
