import Foundation
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// A three-node Apache CouchDB cluster as the hub a room syncs through (issue 41, item 5):
/// a room device keeps continuous push and pull with the cluster while another device
/// syncs with it, through a cluster node dying and through the death and return of the
/// node its jobs use. Needs `COUCHDB_CLUSTER_URLS` (three admin URLs) and, for the
/// node kills, `COUCHDB_CLUSTER_CONTROL` (the directory `scripts/couchdb-cluster up`
/// made, whose node PIDs that script recorded); skipped without them:
///
///     scripts/couchdb-cluster up /work/couchdb/rel/couchdb /tmp/cluster   # prints both
@Suite(.serialized) struct CouchDBClusterHubTests {
    @Test(.enabled(if: CouchDBCluster.isConfigured)) func aRoomSyncsThroughOneDeviceWithTheClusterThroughNodeFailures()
        async throws {
        let cluster = try CouchDBCluster()
        let hub = try RemoteServer(), device = try RemoteServer()
        let db = "hub_" + UUID().uuidString.lowercased().prefix(8)
        #expect(try await cluster.nodes[0].request("PUT", "/\(db)").status == 201)
        #expect(try await hub.request("PUT", "/\(db)").status == 201)
        #expect(try await device.request("PUT", "/\(db)").status == 201)
        // The room: device <-> hub device; the hub device <-> the cluster through node 1.
        try await replicate(on: device, from: db, to: hub.url(db))
        try await replicate(on: device, from: hub.url(db), to: db)
        try await replicate(on: hub, from: db, to: cluster.nodes[0].url(db))
        try await replicate(on: hub, from: cluster.nodes[0].url(db), to: db)

        var expected = Set<String>()
        expected.formUnion(try await write(device, db, prefix: "room-a", count: 300))
        expected.formUnion(try await write(cluster.nodes[1], db, prefix: "hub-a", count: 300))
        try await expectConverged([device, cluster.nodes[1]], db, expected)

        // A node the jobs do not use is killed while documents flow, and comes back.
        let deviceClient = CouchDBCluster.Node(base: device.base)
        async let roomWrites = write(deviceClient, db, prefix: "room-b", count: 200)
        async let clusterWrites = write(cluster.nodes[1], db, prefix: "hub-b", count: 200)
        try cluster.kill(node: 3)
        expected.formUnion(try await roomWrites)
        expected.formUnion(try await clusterWrites)
        try await expectConverged([device, cluster.nodes[1]], db, expected)
        try cluster.start(node: 3)
        try await expectConverged([cluster.nodes[2]], db, expected)

        // The node the hub's jobs use is killed and comes back: they resume from their
        // checkpoints, never from the start.
        let checkedBefore = try await revisionsChecked(hub, source: cluster.nodes[0].url(db))
        try cluster.kill(node: 1)
        expected.formUnion(try await write(device, db, prefix: "room-c", count: 100))
        expected.formUnion(try await write(cluster.nodes[1], db, prefix: "hub-c", count: 100))
        try cluster.start(node: 1)
        try await expectConverged([device, cluster.nodes[0], cluster.nodes[1]], db, expected, timeout: .seconds(120))
        let checkedAfter = try await revisionsChecked(hub, source: cluster.nodes[0].url(db))
        // A job's figures add up over its runs: a run that went on from the checkpoint
        // checked what changed since, far fewer than the 1,000 documents the cluster held
        // before the outage, which a resync from the start would check again.
        let sinceOutage = checkedAfter - checkedBefore
        #expect(sinceOutage < 1_000, "the pull job checked \(sinceOutage) revisions after node 1 returned")
        try await cluster.nodes[1].request("DELETE", "/\(db)")
    }

    /// A continuous `_replicate` on `server`.
    private func replicate(on server: RemoteServer, from source: String, to target: String) async throws {
        let answer = try await server.request("POST", "/_replicate", json: [
            "source": .string(source), "target": .string(target), "continuous": true])
        #expect(answer.status == 202 && answer.json["ok"] == true, "\(answer.json)")
    }

    /// `count` new documents in batches of 20; their ids.
    private func write(_ server: any ServerUnderTest, _ db: String, prefix: String, count: Int) async throws
        -> Set<String> {
        var ids = Set<String>()
        for start in stride(from: 0, to: count, by: 20) {
            let docs: [JSONValue] = (start..<min(start + 20, count)).map {
                ["_id": .string("\(prefix)-\(String(format: "%04d", $0))"), "n": .int($0)]
            }
            let answer = try await server.request("POST", "/\(db)/_bulk_docs", json: ["docs": .array(docs)])
            #expect(answer.status == 201, "\(answer.json)")
            ids.formUnion((answer.json.arrayValue ?? []).filter { $0["ok"] == true }.compactMap { $0["id"]?.stringValue })
        }
        #expect(ids.count == count, "\(prefix): \(ids.count) of \(count) acknowledged")
        return ids
    }

    /// Waits (on each server's longpoll feed) until every server holds exactly `expected`.
    private func expectConverged(_ servers: [any ServerUnderTest], _ db: String, _ expected: Set<String>,
                                 timeout: Duration = .seconds(90)) async throws {
        for server in servers {
            let reached = try await server.waitForDocuments(db, count: expected.count, timeout: timeout)
            let ids = try await allIDs(server, db)
            #expect(reached && ids == expected, "\(server.base): \(ids.count) documents, \(expected.subtracting(ids).count) missing")
        }
    }

    private func allIDs(_ server: any ServerUnderTest, _ db: String) async throws -> Set<String> {
        let rows = try await server.request("GET", "/\(db)/_all_docs").json["rows"]?.arrayValue ?? []
        return Set(rows.compactMap { $0["id"]?.stringValue })
    }

    /// `revisions_checked` of the hub's running job that pulls from `source`, once it runs.
    private func revisionsChecked(_ hub: RemoteServer, source: String) async throws -> Int {
        let port = try #require(URL(string: source)?.port)
        for _ in 0..<600 {
            let tasks = try await hub.request("GET", "/_active_tasks").json.arrayValue ?? []
            if let job = tasks.first(where: { ($0["source"]?.stringValue ?? "").contains(":\(port)/") }),
               let checked = job["revisions_checked"]?.intValue {
                return checked
            }
            try await hub.request("GET", "/_up")
        }
        Issue.record("no running pull job from \(source)")
        return 0
    }
}

/// The cluster of `COUCHDB_CLUSTER_URLS`, its nodes stopped and started by
/// `scripts/couchdb-cluster` in `COUCHDB_CLUSTER_CONTROL`.
struct CouchDBCluster: Sendable {
    final class Node: ServerUnderTest, Sendable {
        let base: String
        let session = CurlSession(maxConnections: 4)

        init(base: String) { self.base = base }
    }

    static let urls = ProcessInfo.processInfo.environment["COUCHDB_CLUSTER_URLS"]?
        .split(separator: ",").map { String($0.hasSuffix("/") ? $0.dropLast() : $0) }
    static let control = ProcessInfo.processInfo.environment["COUCHDB_CLUSTER_CONTROL"]
    static var isConfigured: Bool { (urls?.count ?? 0) >= 3 && control != nil }

    let nodes: [Node]

    init() throws {
        nodes = try #require(Self.urls).map { Node(base: $0) }
    }

    /// SIGKILL: the node has no chance to say goodbye to its peers or clients.
    func kill(node: Int) throws { try run("kill-node", node) }
    func start(node: Int) throws { try run("start-node", node) }

    private func run(_ command: String, _ node: Int) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/couchdb-cluster")
        process.arguments = [command, try #require(Self.control), String(node)]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "couchdb-cluster \(command) \(node)")
    }
}
