import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Synchronization
import Testing

/// Issue #44, item 4: `settee backup` copies a database while a writer goes on, the copy
/// is consistent (it passes `settee check`, holds every document acknowledged before the
/// backup began, and its attachments read back whole), and `settee restore` brings it into
/// another data directory, where a server serves it.
@Suite(.serialized) struct DatabaseBackupTests {
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try SetteeCommand.run(arguments)
    }

    func putAttachment(_ settee: SetteeProcess, _ path: String, _ bytes: [UInt8]) throws -> Int {
        let auth = "Basic " + Data("\(SetteeProcess.defaultAdmin.name):\(SetteeProcess.defaultAdmin.password)".utf8).base64EncodedString()
        return try TestHTTPClient.request("PUT", URL(string: settee.baseURL.absoluteString + path)!,
                                          headers: [("Authorization", auth), ("Content-Type", "application/octet-stream")],
                                          body: bytes).status
    }

    @Test func backupWhileWritingRestoresElsewhere() throws {
        let dir = try TempDirectory(prefix: "backup")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/db").status == 201)
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let small = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        #expect(try putAttachment(settee, "/db/large/a.bin", large) == 201)
        #expect(try putAttachment(settee, "/db/small/a.bin", small) == 201)
        for i in 0..<200 { #expect(try settee.adminRequest("PUT", "/db/before\(i)", json: #"{"i":\#(i)}"#).status == 201) }

        // A writer goes on during the backup.
        let stop = Atomic<Bool>(false), written = Atomic<Int>(0)
        let writer = Thread {
            var i = 0
            while !stop.load(ordering: .relaxed) {
                if (try? settee.adminRequest("PUT", "/db/during\(i)", json: #"{"i":\#(i)}"#))?.status == 201 {
                    written.add(1, ordering: .relaxed)
                }
                i += 1
            }
        }
        writer.start()
        let deadline = Date().addingTimeInterval(30)
        while written.load(ordering: .relaxed) < 20 && Date() < deadline { usleep(1_000) }
        let backup = try run(["backup", "db", dir.appending("copy"), "--data-dir", dir.appending("data")])
        stop.store(true, ordering: .relaxed)
        #expect(backup.status == 0 && backup.output.hasPrefix("db: backed up at update seq "), "\(backup.output)")
        #expect(written.load(ordering: .relaxed) >= 20, "the writer never got going")
        let again = try run(["backup", "db", dir.appending("copy"), "--data-dir", dir.appending("data")])
        #expect(again.status != 0, "a second backup into the same directory replaced the first")
        #expect(try run(["check", "--data-dir", dir.appending("copy")]) == (0, "db: ok\n"))

        let restored = try run(["restore", dir.appending("copy"), "db", "--data-dir", dir.appending("other")])
        #expect(restored.status == 0, "\(restored.output)")
        let other = try SetteeProcess.start(dataDirectory: dir.appending("other"))
        defer { other.kill(SIGKILL) }
        let info = try #require(try other.adminRequest("GET", "/db").json)
        let count = try #require(info["doc_count"]?.intValue)
        #expect(count >= 202, "\(info)")
        for i in [0, 99, 199] { #expect(try other.adminRequest("GET", "/db/before\(i)").status == 200) }
        let all = try other.adminRequest("GET", "/db/_all_docs").json?["rows"]?.arrayValue ?? []
        #expect(all.count == count, "doc_count \(count) but \(all.count) rows")
        #expect(try other.adminRequest("GET", "/db/large/a.bin").body == large)
        #expect(try other.adminRequest("GET", "/db/small/a.bin").body == small)
        #expect(try other.adminRequest("PUT", "/db/after", json: "{}").status == 201)
        #expect(try run(["restore", dir.appending("copy"), "db", "--data-dir", dir.appending("other")]).status != 0,
                "a restore replaced a database that exists")
    }
}
