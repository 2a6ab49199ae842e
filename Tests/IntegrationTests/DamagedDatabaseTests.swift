import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue #47 item 4: a database damaged while the server is stopped is noticed, said so
/// in `GET /{db}` and the log, refuses writes with a CouchDB-style error, and the other
/// databases keep serving.
@Suite(.serialized) struct DamagedDatabaseTests {
    /// 16 bytes changed in the `-wal` file make SQLite drop the commits from that frame on
    /// without an error; the update sequence is then behind the one recorded after the
    /// last commit, which the open notices.
    @Test func rolledBackDatabaseIsReadOnlyAndTheOthersServe() throws {
        let dir = try TempDirectory(prefix: "wal-damage")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        for db in ["db", "other"] { #expect(try settee.adminRequest("PUT", "/\(db)").status == 201) }
        for i in 0..<60 { #expect(try settee.adminRequest("PUT", "/db/doc\(i)", json: #"{"i":\#(i)}"#).status == 201) }
        // kill -9: no clean close, so the commits are still in the WAL.
        settee.kill(SIGKILL)
        _ = try settee.waitForExit(timeout: 30)
        let wal = dir.appending("db.couch-wal")
        let size = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
        let frames = (size - 32) / (24 + 4096)
        try #require(frames > 4, "the commits are in the WAL")
        let handle = try #require(FileHandle(forUpdatingAtPath: wal))
        try handle.seek(toOffset: UInt64(32 + (frames / 2) * (24 + 4096) + 24 + 1_000))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 16))
        try handle.close()

        let again = try SetteeProcess.start(dataDirectory: dir.path)
        defer { again.kill(SIGKILL) }
        let info = try again.adminRequest("GET", "/db")
        #expect(info.status == 200)
        #expect(info.json?["damaged"]?.stringValue?.contains("committed updates are missing") == true, "\(info.text)")
        let write = try again.adminRequest("PUT", "/db/new", json: "{}")
        #expect(write.status == 500 && write.json?["error"] == "file_corruption", "\(write.text)")
        #expect(again.waitForOutput(containing: "database db damaged, now read-only", timeout: 10))
        #expect(try again.adminRequest("PUT", "/other/doc", json: "{}").status == 201)
        #expect(try again.adminRequest("GET", "/other").json?["damaged"] == nil)
    }

    /// 40 bytes of 0xFF in a page of records, where a single GET may still work but a scan
    /// fails: the open finds it (`PRAGMA quick_check`, the file being small) or the first
    /// scan does. `_changes?include_docs=true` never ends as a complete response (an error
    /// answer, or a chunked body without its last chunk), the log names the database, it
    /// turns read-only and stays so after a restart; `settee check` reports it.
    @Test func malformedRecordMidScanIsLoggedAndMarksTheDatabase() throws {
        let dir = try TempDirectory(prefix: "malformed")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        for db in ["db", "other"] { #expect(try settee.adminRequest("PUT", "/\(db)").status == 201) }
        let body = String(repeating: "x", count: 200)
        for start in stride(from: 0, to: 500, by: 100) {
            let docs = (start..<start + 100).map { #"{"_id":"doc\#(1000 + $0)","v":"\#(body)"}"# }
            let bulk = try settee.adminRequest("POST", "/db/_bulk_docs", json: #"{"docs":[\#(docs.joined(separator: ","))]}"#)
            #expect(bulk.status == 201)
        }
        settee.kill(SIGTERM)
        _ = try settee.waitForExit(timeout: 30)
        // `settee check` finds it sound, and its closing the file checkpoints the WAL
        // into it, where the damage goes.
        let sound = try check(["db", "--data-dir", dir.path])
        #expect(sound.status == 0 && sound.output == "db: ok\n", "\(sound.output)")
        let all = try check(["--data-dir", dir.path])
        #expect(all.status == 0 && all.output.contains("db: ok\n") && all.output.contains("other: ok\n"), "\(all.output)")
        let path = dir.appending("db.couch")
        var file = try Data(contentsOf: URL(fileURLWithPath: path))
        let middle = (file.count / 4096 / 2) * 4096 + 2048
        file.replaceSubrange(middle..<middle + 40, with: Data(repeating: 0xFF, count: 40))
        try file.write(to: URL(fileURLWithPath: path))

        // The bytes break the page (SQLite's check) or a record's body (the body checksum).
        let found = try check(["--data-dir", dir.path])
        #expect(found.status == 1 && (found.output.contains("db: problem: database file: database disk image is malformed")
                    || found.output.contains("db: problem: document bodies:"))
                    && found.output.contains("other: ok\n"), "\(found.output)")

        let again = try SetteeProcess.start(dataDirectory: dir.path)
        defer { again.kill(SIGKILL) }
        let changes = try? again.adminRequest("GET", "/db/_changes?include_docs=true")
        #expect(changes == nil || changes?.status == 500, "a damaged feed answered as complete: \(changes?.status ?? 0)")
        #expect(again.waitForOutput(containing: "database db damaged, now read-only", timeout: 10))
        #expect(try again.adminRequest("GET", "/db").json?["damaged"]?.stringValue?.contains("malformed") == true)
        #expect(try again.adminRequest("PUT", "/db/new", json: "{}").json?["error"] == "file_corruption")
        #expect(try again.adminRequest("PUT", "/other/doc", json: "{}").status == 201)
        again.kill(SIGTERM)
        _ = try again.waitForExit(timeout: 30)
        let third = try SetteeProcess.start(dataDirectory: dir.path)
        defer { third.kill(SIGKILL) }
        #expect(try third.adminRequest("GET", "/db").json?["damaged"] != nil, "the damage was forgotten across a restart")
    }

    /// Runs `settee check ARGUMENTS`: its exit status and its standard output.
    func check(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try SetteeCommand.run(["check"] + arguments)
    }
}
