import Testing
@testable import SetteeServer
import SetteeStore
import SetteeJSON
import SetteeHTTP
import Foundation
import Logging

/// Settee's own promises and settings around what the conformance suite checks
/// against CouchDB: batch writes are durable at once, the listing settings, and
/// the single-node system databases.
@Suite struct ServerPolicyTests {
    /// Settee writes a `?batch=ok` document before its 202: the next read sees it.
    @Test func batchWriteIsReadableAtOnce() async throws {
        let h = try RouterHarness()
        _ = await h.send("PUT", "/db")
        let put = await h.send("PUT", "/db/b?batch=ok", json: ["v": 1])
        #expect(put.status == 202)
        #expect(put.json == ["ok": true, "id": "b"])
        #expect(await h.send("GET", "/db/b").json["v"] == 1)
        let post = await h.send("POST", "/db?batch=ok", json: ["_id": "p", "v": 2],
                                headers: ["Content-Type": "application/json"])
        #expect(post.status == 202)
        #expect(await h.send("GET", "/db/p").json["v"] == 2)
    }

    @Test func listingIsOpenWhenAdminOnlyAllDbsIsOff() async throws {
        let closed = try RouterHarness()
        #expect(await closed.send("GET", "/_all_dbs", admin: false).status == 401)
        let open = try RouterHarness { $0.adminOnlyAllDatabases = false }
        #expect(await open.send("GET", "/_all_dbs", admin: false).status == 200)
        #expect(await open.send("GET", "/_dbs_info", admin: false).status == 200)
    }

    /// `prepare()` creates `_users` and `_replicator`, admin-only, once; not at all
    /// with `single_node = false`.
    @Test(arguments: [true, false])
    func singleNodeCreatesSystemDatabases(singleNode: Bool) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("settee-node-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = NodeConfiguration(http: .init(), store: StoreConfiguration(path: path),
                                              uuid: "0123456789abcdef0123456789abcdef")
        configuration.singleNode = singleNode
        let node = try SetteeNode(configuration: configuration, logger: Logger(label: "test"))
        try await node.prepare()
        try await node.prepare()  // a second start finds them and keeps them
        let names = try node.directory.names()
        #expect(names == (singleNode ? ["_replicator", "_users"] : []))
        if singleNode, let users = try node.directory.database(named: "_users") {
            let security = try JSONReader.parse(try await users.security())
            #expect(security["members"]?["roles"] == ["_admin"])
        }
        node.directory.closeAll()
    }
}
