import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue #44, item 2: a disk whose writes and fsyncs fail with EIO (scripts/faults/eio_shim.c,
/// preloaded, failing the files of databases whose name starts with "bad" once a trigger file
/// exists). The write that meets it is refused (never acknowledged), the database turns
/// read-only with a log line and `GET /{db}` saying why, its later writes are refused at once,
/// also after the disk recovers (no silent retry: after a failed fsync the page cache
/// cannot be trusted), its reads and the other databases keep serving, and a restart on a
/// sound disk finds every acknowledged write and none of the refused ones.
@Suite(.serialized) struct FailingDiskTests {
    /// The shim, built from its source with the system C compiler; nil without one.
    static func buildShim(into dir: TempDirectory) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { return nil }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/faults/eio_shim.c").path
        let output = dir.appending("eio_shim.so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        process.arguments = ["-shared", "-fPIC", "-O2", "-o", output, source, "-ldl"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? output : nil
    }

    func attachment(_ settee: SetteeProcess, _ path: String, bytes: Int) throws -> TestResponse {
        let auth = "Basic " + Data("\(SetteeProcess.defaultAdmin.name):\(SetteeProcess.defaultAdmin.password)".utf8).base64EncodedString()
        return try TestHTTPClient.request("PUT", URL(string: settee.baseURL.absoluteString + path)!,
                                          headers: [("Authorization", auth), ("Content-Type", "application/octet-stream")],
                                          body: (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "needs a C compiler for the shim"))
    func aFailedWriteIsRefusedAndTheDatabaseTurnsReadOnly() throws {
        let dir = try TempDirectory(prefix: "failingdisk")
        let shim = try #require(try Self.buildShim(into: dir), "the shim did not build")
        let trigger = dir.appending("disk-fails")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), environment: [
            "LD_PRELOAD": shim, "SETTEE_EIO_TRIGGER": trigger, "SETTEE_EIO_MATCH": "/bad"])
        for db in ["bad", "badblobs", "good"] { #expect(try settee.adminRequest("PUT", "/\(db)").status == 201) }
        #expect(try settee.adminRequest("PUT", "/bad/d1", json: #"{"a":1}"#).status == 201)
        #expect(FileManager.default.createFile(atPath: trigger, contents: nil))

        // A document write: its COMMIT's write or fsync fails.
        let failed = try settee.adminRequest("PUT", "/bad/d2", json: #"{"a":2}"#)
        #expect(failed.status == 500, "a write the disk failed was answered \(failed.status) \(failed.text)")
        #expect(settee.waitForOutput(containing: "database bad damaged, now read-only: a write to the disk failed", timeout: 10))
        let info = try settee.adminRequest("GET", "/bad")
        #expect(info.json?["damaged"]?.stringValue?.contains("a write to the disk failed") == true, "\(info.text)")
        let refused = try settee.adminRequest("PUT", "/bad/d3", json: #"{"a":3}"#)
        #expect(refused.status == 500 && refused.json?["error"] == "file_corruption", "\(refused.text)")
        // An attachment blob (a file of its own past the inline limit): its write fails.
        #expect(try attachment(settee, "/badblobs/a1/x.bin", bytes: 300_000).status == 500)
        #expect(try settee.adminRequest("GET", "/badblobs").json?["damaged"]?.stringValue?.contains("errno: 5") == true)

        // Reads go on, the other database is untouched.
        #expect(try settee.adminRequest("GET", "/bad/d1").status == 200)
        #expect(try settee.adminRequest("PUT", "/good/g1", json: "{}").status == 201)
        // The disk "recovers": the database stays read-only, nothing is retried behind it.
        try FileManager.default.removeItem(atPath: trigger)
        #expect(try settee.adminRequest("PUT", "/bad/d4", json: "{}").json?["error"] == "file_corruption")
        settee.kill(SIGKILL)
        _ = try settee.waitForExit(timeout: 30)

        // On a sound disk: every acknowledged write is there, none of the refused ones.
        let again = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { again.kill(SIGKILL) }
        #expect(try again.adminRequest("GET", "/bad/d1").status == 200)
        for id in ["d2", "d3", "d4"] { #expect(try again.adminRequest("GET", "/bad/\(id)").status == 404, "\(id)") }
        #expect(try again.adminRequest("GET", "/badblobs/a1").status == 404)
        #expect(try again.adminRequest("GET", "/good/g1").status == 200)
    }
}
