import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// Settee's replicator against a real Apache CouchDB, and CouchDB's replicator
/// against Settee. Needs `COUCHDB_URL` (admin credentials in it, on this host so
/// that CouchDB can reach Settee's loopback port); skipped without it.
/// Set COUCHDB_URL=http://admin:password@127.0.0.1:5984 to run these.
@Suite(.serialized) struct CouchDBInteropTests {
    private func replicate(_ source: any Peer, _ target: any Peer) async throws -> Replication.Outcome {
        var options = ReplicationOptions()
        options.createTarget = true
        return try await Replication(source: source, target: target, options: options, logger: Logger(label: "test")).run()
    }

    private func name() -> String { "settee_interop_" + UUID().uuidString.lowercased().prefix(8) }

    @Test(.enabled(if: CouchDBServer.url != nil)) func setteePushesToCouchDBAndPullsBack() async throws {
        let settee = try RemoteServer(), couch = try CouchDBServer()
        let there = name()
        try await settee.fill("src", count: 500)
        let push = try await replicate(try settee.peer("src"), try couch.peer(there))
        #expect(push.stats.docWriteFailures == 0)
        let expected = try await settee.pictures("src")
        #expect(try await couch.pictures(there) == expected)
        #expect(try await couch.request("GET", "/\(there)/_local/private").status == 404)
        let pull = try await replicate(try couch.peer(there), try settee.peer("back"))
        #expect(pull.stats.docWriteFailures == 0)
        #expect(try await settee.pictures("back") == expected)
        // Resumed from the checkpoint both sides keep: nothing is read again.
        let again = try await replicate(try couch.peer(there), try settee.peer("back"))
        #expect(again.noChanges)
        try await couch.request("DELETE", "/\(there)")
    }

    @Test(.enabled(if: CouchDBServer.url != nil)) func couchDBsReplicatorPullsFromAndPushesToSettee() async throws {
        let settee = try RemoteServer(), couch = try CouchDBServer()
        let there = name()
        try await settee.fill("src", count: 200)
        let pull = try await couch.request("POST", "/_replicate", json: [
            "source": .string(settee.url("src")), "target": .string(couch.url(there)), "create_target": true])
        #expect(pull.status == 200 && pull.json["ok"] == true)
        #expect(try await couch.pictures(there) == (try await settee.pictures("src")))
        let push = try await couch.request("POST", "/_replicate", json: [
            "source": .string(couch.url(there)), "target": .string(settee.url("fromcouch")), "create_target": true])
        #expect(push.status == 200 && push.json["ok"] == true)
        #expect(try await settee.pictures("fromcouch") == (try await settee.pictures("src")))
        try await couch.request("DELETE", "/\(there)")
    }

    /// CouchDB's replicator (Erlang's own TLS 1.3, not OpenSSL) over HTTPS to Settee, whose
    /// TLS 1.3 sessions leave OpenSSL after the handshake (`TLS13Records`): every record
    /// after OpenSSL's session tickets is Settee's own, both ways.
    @Test(.enabled(if: CouchDBServer.url != nil)) func couchDBsReplicatorOverHTTPS() async throws {
        let settee = try RemoteServer(https: true), couch = try CouchDBServer()
        let there = name()
        try await settee.fill("src", count: 200)
        let admin = SetteeProcess.defaultAdmin
        let https = "https://\(admin.name):\(admin.password)@127.0.0.1:\(try #require(settee.tlsPort))"
        let pull = try await couch.request("POST", "/_replicate", json: [
            "source": .string(https + "/src"), "target": .string(couch.url(there)), "create_target": true])
        #expect(pull.status == 200 && pull.json["ok"] == true)
        #expect(try await couch.pictures(there) == (try await settee.pictures("src")))
        let push = try await couch.request("POST", "/_replicate", json: [
            "source": .string(couch.url(there)), "target": .string(https + "/fromcouch"), "create_target": true])
        #expect(push.status == 200 && push.json["ok"] == true)
        #expect(try await settee.pictures("fromcouch") == (try await settee.pictures("src")))
        try await couch.request("DELETE", "/\(there)")
    }
}
