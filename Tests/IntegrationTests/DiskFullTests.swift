import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue #44, item 1: the data directory on a file system that fills up (a 12 MB tmpfs).
/// Every kind of write then answers CouchDB's 507 `insufficent_storage` (its disk
/// monitor's answer; with an actual ENOSPC CouchDB 3.4.3 crashes the write and answers
/// 500 "internal_server_error"), leaves no partial document or database, reads keep
/// being served, view and Mango index builds say so in their answer and `_active_tasks`;
/// once the file system has room again every write and build succeeds with no restart,
/// and every acknowledged write is there.
@Suite(.serialized) struct DiskFullTests {
    var generator = SplitMix(state: 44)

    /// `count` random bytes as base64: incompressible, so each write takes real space.
    mutating func noise(_ count: Int) -> String {
        Data(bytes(count)).base64EncodedString()
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count { withUnsafeBytes(of: generator.next()) { bytes += $0 } }
        return Array(bytes.prefix(count))
    }

    func send(_ settee: SetteeProcess, _ method: String, _ path: String, type: String, body: [UInt8]) throws -> TestResponse {
        let auth = "Basic " + Data("\(SetteeProcess.defaultAdmin.name):\(SetteeProcess.defaultAdmin.password)".utf8).base64EncodedString()
        return try TestHTTPClient.request(method, URL(string: settee.baseURL.absoluteString + path)!,
                                          headers: [("Authorization", auth), ("Content-Type", type)], body: body)
    }

    /// A multipart/related document PUT with one attachment that follows (CouchDB's
    /// "Creating Multiple Attachments" form).
    func multipart(_ settee: SetteeProcess, _ id: String, _ attachment: [UInt8]) throws -> TestResponse {
        let json = #"{"_attachments":{"m.bin":{"follows":true,"content_type":"application/octet-stream","length":\#(attachment.count)}}}"#
        var body = Array("--frontier\r\nContent-Type: application/json\r\n\r\n\(json)\r\n--frontier\r\n\r\n".utf8)
        body += attachment + Array("\r\n--frontier--".utf8)
        return try send(settee, "PUT", "/fdb/\(id)", type: "multipart/related;boundary=\"frontier\"", body: body)
    }

    func isInsufficientStorage(_ response: TestResponse, reason: String = "database_dir is too full") -> Bool {
        response.status == 507 && response.json?["error"] == "insufficent_storage" && response.json?["reason"]?.stringValue == reason
    }

    @Test(.enabled(if: SmallFileSystem.canMount, "needs to mount a tmpfs (root or CAP_SYS_ADMIN)"))
    mutating func everyWriteIsRefusedWhileFullAndWorksOnceThereIsRoom() throws {
        let disk = try SmallFileSystem(megabytes: 12)
        let settee = try SetteeProcess.start(dataDirectory: disk.path + "/data")
        defer { settee.kill(SIGKILL); _ = try? settee.waitForExit(timeout: 30) }
        for db in ["fdb", "src"] { #expect(try settee.adminRequest("PUT", "/\(db)").status == 201) }
        #expect(try settee.adminRequest("PUT", "/src/s1", json: #"{"v":"\#(noise(50_000))"}"#).status == 201)
        let view = #"{"views":{"v":{"map":"function(d) { if (d.v) emit(d.v.substring(0, 3000), 1); }"}}}"#
        #expect(try settee.adminRequest("PUT", "/fdb/_design/v", json: view).status == 201)
        let index = #"{"index":{"fields":["n"]},"ddoc":"m","name":"n"}"#
        #expect(try settee.adminRequest("POST", "/fdb/_index", json: index).status == 200)

        // Fill it: every 201 is an acknowledged write that must survive.
        var acknowledged: [String] = []
        var full: TestResponse?
        for i in 0..<400 {
            let response = try settee.adminRequest("PUT", "/fdb/f\(i)", json: #"{"n":\#(i),"v":"\#(noise(150_000))"}"#)
            guard response.status == 201 else { full = response; break }
            acknowledged.append("f\(i)")
        }
        let refused = try #require(full, "12 MB never filled up")
        #expect(isInsufficientStorage(refused), "\(refused.status) \(refused.text)")

        try expectEveryWriteRefused(settee)
        // Reads keep being served.
        #expect(try settee.adminRequest("GET", "/fdb/\(acknowledged[0])").status == 200)
        #expect(try settee.adminRequest("GET", "/fdb").json?["doc_count"]?.intValue == acknowledged.count + 2)

        try disk.resize(megabytes: 96)
        try expectEveryWriteAccepted(settee, acknowledged: acknowledged)
    }

    /// With the file system full, each kind of write answers 507 and stores nothing.
    mutating func expectEveryWriteRefused(_ settee: SetteeProcess) throws {
        let big = noise(150_000)
        let writes: [(String, TestResponse)] = [
            ("PUT doc", try settee.adminRequest("PUT", "/fdb/x1", json: #"{"v":"\#(big)"}"#)),
            ("_bulk_docs", try settee.adminRequest("POST", "/fdb/_bulk_docs", json: #"{"docs":[{"_id":"b1","v":"\#(big)"}]}"#)),
            ("new_edits=false", try settee.adminRequest("POST", "/fdb/_bulk_docs",
                                                         json: #"{"new_edits":false,"docs":[{"_id":"r1","_rev":"1-abc","v":"\#(big)"}]}"#)),
            ("attachment PUT", try send(settee, "PUT", "/fdb/a1/a.bin", type: "application/octet-stream", body: bytes(300_000))),
            ("inline attachment", try settee.adminRequest("PUT", "/fdb/a2",
                                                           json: #"{"_attachments":{"x":{"content_type":"text/plain","data":"\#(noise(200_000))"}}}"#)),
            ("multipart", try multipart(settee, "a3", bytes(300_000))),
            ("_local", try settee.adminRequest("PUT", "/fdb/_local/checkpoint", json: #"{"v":"\#(big)"}"#)),
            ("_security", try settee.adminRequest("PUT", "/fdb/_security", json: #"{"members":{"names":["\#(big)"]}}"#)),
            ("create database", try settee.adminRequest("PUT", "/newdb")),
            ("_replicate", try settee.adminRequest("POST", "/_replicate", json: #"{"source":"src","target":"fdb"}"#)),
        ]
        for (kind, response) in writes where kind != "_bulk_docs" {
            #expect(isInsufficientStorage(response), "\(kind): \(response.status) \(response.text)")
        }
        // An interactive `_bulk_docs` answers 201 with the error in each document's row,
        // as CouchDB's disk monitor refuses it.
        let bulk = writes[1].1
        let row = bulk.json?.arrayValue?.first
        #expect(bulk.status == 201 && row?["id"] == "b1" && row?["error"] == "insufficent_storage"
                    && row?["reason"] == "database_dir is too full", "\(bulk.text)")
        // Nothing partial: no document, no database, no replicated revision.
        for id in ["x1", "b1", "r1", "a1", "a2", "a3", "s1"] {
            #expect(try settee.adminRequest("GET", "/fdb/\(id)").status == 404, "\(id) was stored")
        }
        #expect(try settee.adminRequest("GET", "/fdb/_local/checkpoint").status == 404)
        #expect(try settee.adminRequest("GET", "/newdb").status == 404)
        let compact = try settee.adminRequest("POST", "/fdb/_compact", json: "{}")
        #expect(compact.status == 507 && compact.json?["reason"]?.stringValue?.hasPrefix("Compaction needs") == true,
                "\(compact.text)")

        // Index builds: the query says so, and `_active_tasks` shows the indexer's error.
        let query = try settee.adminRequest("GET", "/fdb/_design/v/_view/v?limit=1")
        #expect(isInsufficientStorage(query, reason: "not enough room to update index"), "\(query.text)")
        let find = try settee.adminRequest("POST", "/fdb/_find", json: #"{"selector":{"n":{"$gte":0}},"use_index":"m","limit":1}"#)
        #expect(isInsufficientStorage(find, reason: "not enough room to update index"), "\(find.text)")
        let tasks = try settee.adminRequest("GET", "/_active_tasks").json?.arrayValue ?? []
        #expect(tasks.contains { $0["type"] == "indexer" && $0["error"]?.stringValue?.contains("full") == true }, "\(tasks)")
    }

    /// Once there is room again, with no restart: each kind of write succeeds, the indexes
    /// catch up, and every acknowledged write is there.
    mutating func expectEveryWriteAccepted(_ settee: SetteeProcess, acknowledged: [String]) throws {
        let big = noise(150_000)
        #expect(try settee.adminRequest("PUT", "/fdb/x1", json: #"{"v":"\#(big)"}"#).status == 201)
        #expect(try settee.adminRequest("POST", "/fdb/_bulk_docs", json: #"{"docs":[{"_id":"b1","v":"1"}]}"#).status == 201)
        #expect(try send(settee, "PUT", "/fdb/a1/a.bin", type: "application/octet-stream", body: bytes(300_000)).status == 201)
        #expect(try multipart(settee, "a3", bytes(300_000)).status == 201)
        #expect(try settee.adminRequest("PUT", "/fdb/_local/checkpoint", json: "{}").status == 201)
        #expect(try settee.adminRequest("PUT", "/fdb/_security", json: #"{"members":{"names":["a"]}}"#).status == 200)
        #expect(try settee.adminRequest("PUT", "/newdb").status == 201)
        #expect(try settee.adminRequest("POST", "/_replicate", json: #"{"source":"src","target":"fdb"}"#).status == 200)
        let rows = try settee.adminRequest("GET", "/fdb/_design/v/_view/v")
        #expect(rows.status == 200 && rows.json?["total_rows"]?.intValue == acknowledged.count + 3, "\(rows.status)")
        let find = try settee.adminRequest("POST", "/fdb/_find", json: #"{"selector":{"n":{"$gte":0}},"use_index":"m","fields":["_id"],"limit":1000}"#)
        #expect(find.json?["docs"]?.arrayValue?.count == acknowledged.count, "\(find.status)")
        let tasks = try settee.adminRequest("GET", "/_active_tasks").json?.arrayValue ?? []
        #expect(!tasks.contains { $0["error"] != nil }, "\(tasks)")
        let all = try settee.adminRequest("GET", "/fdb/_all_docs").json?["rows"]?.arrayValue ?? []
        let ids = Set(all.compactMap { $0["id"]?.stringValue })
        #expect(Set(acknowledged).isSubset(of: ids), "acknowledged writes missing: \(Set(acknowledged).subtracting(ids))")
        #expect(try settee.adminRequest("POST", "/fdb/_compact", json: "{}").status == 202)
    }
}
