import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeStore
import SetteeTestSupport
import Testing

/// The replicator against real `settee` processes over HTTP: push, pull, the
/// CLI, a peer that moves, a target killed mid-way.
@Suite(.serialized) struct RemoteReplicationTests {
    private func replicate(_ source: any Peer, _ target: any Peer,
                           configure: (inout ReplicationOptions) -> Void = { _ in }) async throws -> Replication.Outcome {
        var options = ReplicationOptions()
        configure(&options)
        // The test owns the local store: its writes there are the node's own.
        return try await WriteContext.$writer.withValue(.system) {
            try await Replication(source: source, target: target, options: options, logger: Logger(label: "test")).run()
        }
    }

    @Test func pushAndPullBetweenTwoServersKeepEveryTreeAndDigest() async throws {
        let a = try RemoteServer(), b = try RemoteServer()
        try await a.fill("src", count: 10_000)
        let push = try await replicate(try a.peer("src"), try b.peer("copy")) { $0.createTarget = true }
        #expect(push.stats.docWriteFailures == 0 && push.stats.docsWritten == push.stats.missingFound)
        let expected = try await a.pictures("src")
        #expect(expected.count == 10_003)  // and _design/app, conflicted, gone
        #expect(try await b.pictures("copy") == expected)
        #expect(expected["conflicted"]?.count == 2)
        #expect(try await b.request("GET", "/copy/_local/private").status == 404)
        // Pull into a local store from the copy, then back out to a third database on a.
        let store = try ReplicatorStore()
        defer { store.remove() }
        _ = try await replicate(try b.peer("copy"), store.peer("local")) { $0.createTarget = true }
        _ = try await replicate(store.peer("local"), try a.peer("roundtrip")) { $0.createTarget = true }
        #expect(try await a.pictures("roundtrip") == expected)
    }

    @Test func aSelectorIsAskedOfARemoteSource() async throws {
        let a = try RemoteServer(), b = try RemoteServer()
        try await a.fill("src", count: 40)
        let outcome = try await replicate(try a.peer("src"), try b.peer("picked")) {
            $0.createTarget = true
            $0.selector = ["n": ["$lt": 3]]
        }
        #expect(outcome.stats.docsWritten == 3)
        #expect(try await b.pictures("picked").keys.sorted() == ["doc00000", "doc00001", "doc00002"])
    }

    @Test func aPeerOnAnotherPortKeepsItsCheckpoint() async throws {
        let a = try RemoteServer(), b = try RemoteServer()
        try await a.fill("src", count: 200)
        let first = try await replicate(try a.peer("src"), try b.peer("dst")) { $0.createTarget = true }
        #expect(first.stats.docsWritten > 200)
        let oldBase = b.base
        try b.restart(port: try FreePort.find())
        #expect(b.base != oldBase)
        let again = try await replicate(try a.peer("src"), try b.peer("dst"))
        #expect(again.replicationID == first.replicationID)
        #expect(again.stats.missingChecked == 0 && again.noChanges)
    }

    @Test func continuousReplicationSurvivesATargetKilledMidway() async throws {
        let a = try RemoteServer(), b = try RemoteServer()
        #expect(try await a.request("PUT", "/src").status == 201)
        let port = try #require(b.process.baseURL.port)
        let replication = Replication(source: try a.peer("src"), target: try b.peer("dst"),
                                      options: { var o = ReplicationOptions(); o.continuous = true; o.createTarget = true
                                                 o.batchSize = 50; o.pollTimeout = .seconds(1); return o }(),
                                      logger: Logger(label: "test"))
        let job = Task { try await replication.run() }
        for round in 0..<4 {
            let docs: [JSONValue] = (0..<250).map { ["_id": .string("r\(round)-\($0)")] }
            #expect(try await a.request("POST", "/src/_bulk_docs", json: ["docs": .array(docs)]).status == 201)
            if round == 1 {
                #expect(try await b.waitForDocuments("dst", count: 300))
                try b.restart(kill: SIGKILL, port: port)
            }
        }
        #expect(try await b.waitForDocuments("dst", count: 1000))
        job.cancel()
        _ = try? await job.value
        let info = try await b.request("GET", "/dst").json
        #expect(info["doc_count"] == 1000)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    @Test func theCommandLineReplicatesAndReportsFailure() async throws {
        let a = try RemoteServer(), b = try RemoteServer()
        try await a.fill("src", count: 50)
        let ok = try runSetteeCLI(["replicate", a.url("src"), b.url("cli"), "--create-target"])
        #expect(ok.status == 0)
        #expect(ok.output.contains("written") && !ok.output.contains("test-password"))
        #expect(try await b.pictures("cli") == (try await a.pictures("src")))
        let failed = try runSetteeCLI(["replicate", a.url("nothing"), b.url("cli")])
        #expect(failed.status == 1 && failed.output.contains("does not exist"))
        // Both ways: edits on each side end on both, with the same winners.
        #expect(try await a.request("PUT", "/src/from-a", json: ["side": "a"]).status == 201)
        #expect(try await b.request("PUT", "/cli/from-b", json: ["side": "b"]).status == 201)
        let sync = try runSetteeCLI(["sync", a.url("src"), b.url("cli")])
        #expect(sync.status == 0)
        #expect(try await b.pictures("cli") == (try await a.pictures("src")))
        #expect(try await a.request("GET", "/src/from-b").status == 200)
    }
}
