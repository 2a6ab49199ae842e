import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue 45 item 4: `settee replicate` of one 300 MB attachment peaked at 956 MB RSS
/// (the bytes held whole, in several copies). Two real servers, one document with a
/// 48 MiB attachment of random bytes, replicated by the `settee replicate` process
/// URL → URL, URL → its own store, and from there → URL again: the target's digest and length must be the
/// source's, and the replicating process's peak RSS (VmHWM) may grow past that of
/// replicating one small document by well under the attachment's size. Before the
/// streaming it grew by 3.0 times the size URL → URL and 1.4 times into its own store;
/// the bound is half of it (after: a few MB).
@Suite(.serialized) struct ReplicationMemoryTests {
    static let size = 48 << 20
    static let admin = SetteeProcess.defaultAdmin

    @Test func aLargeAttachmentReplicatesWithoutBeingHeldInMemory() throws {
        let dir = try TempDirectory(prefix: "repmem")
        defer { dir.remove() }
        let source = try SetteeProcess.start(dataDirectory: dir.appending("source"))
        defer { source.kill(SIGKILL) }
        let target = try SetteeProcess.start(dataDirectory: dir.appending("target"))
        defer { target.kill(SIGKILL) }
        #expect(try source.adminRequest("PUT", "/small").status == 201)
        #expect(try source.adminRequest("PUT", "/small/doc", json: #"{"n":1}"#).status == 201)
        #expect(try source.adminRequest("PUT", "/big").status == 201)
        var random = SplitMix(state: 45)
        var bytes = [UInt8](repeating: 0, count: Self.size)
        bytes.withUnsafeMutableBytes { raw in
            for index in 0..<Self.size / 8 { raw.storeBytes(of: random.next(), toByteOffset: index * 8, as: UInt64.self) }
        }
        let put = try TestHTTPClient.request("PUT", try url(source, "/big/doc/blob"), headers: [
            ("Authorization", basic), ("Content-Type", "application/octet-stream")], body: bytes, timeout: 120)
        #expect(put.status == 201)
        let expected = try stub(source, "big")
        #expect(expected.length == Self.size)

        let spool = try TempDirectory(prefix: "repmem-spool")
        defer { spool.remove() }
        let baseline = try replicate(admin(source, "small"), admin(target, "small"), tmp: spool.path)
        let remote = try replicate(admin(source, "big"), admin(target, "big"), tmp: spool.path)
        #expect(try stub(target, "big") == expected)
        #expect(remote - baseline < Self.size / 2, "URL → URL grew by \(remote - baseline) bytes")

        let store = dir.appending("puller")
        let localBaseline = try replicate(admin(source, "small"), "small", tmp: spool.path, "--data-dir", store)
        let pulled = try replicate(admin(source, "big"), "big", tmp: spool.path, "--data-dir", store)
        #expect(pulled - localBaseline < Self.size / 2, "URL → local grew by \(pulled - localBaseline) bytes")
        // What the puller stored, read back through a server on its data directory.
        let puller = try SetteeProcess.start(dataDirectory: store)
        defer { puller.kill(SIGKILL) }
        #expect(try stub(puller, "big") == expected)
        puller.kill(SIGTERM)
        _ = try puller.waitForExit()
        let pushBaseline = try replicate("small", admin(target, "small-pushed"), tmp: spool.path, "--data-dir", store)
        let pushed = try replicate("big", admin(target, "big-pushed"), tmp: spool.path, "--data-dir", store)
        #expect(pushed - pushBaseline < Self.size / 2, "local → URL grew by \(pushed - pushBaseline) bytes")
        #expect(try stub(target, "big-pushed") == expected)
        // Spool files are unlinked when made: nothing is left in TMPDIR or the store.
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).filter { $0.hasPrefix(".settee-replication") }.isEmpty)
    }

    var basic: String { "Basic " + Data("\(Self.admin.name):\(Self.admin.password)".utf8).base64EncodedString() }

    func url(_ settee: SetteeProcess, _ path: String) throws -> URL {
        try #require(URL(string: settee.baseURL.absoluteString.dropLastSlash + path))
    }

    func admin(_ settee: SetteeProcess, _ db: String) -> String {
        "http://\(Self.admin.name):\(Self.admin.password)@127.0.0.1:\(settee.baseURL.port ?? 0)/\(db)"
    }

    /// The `blob` attachment's digest and length on `settee`.
    func stub(_ settee: SetteeProcess, _ db: String) throws -> Stub {
        let doc = try settee.adminRequest("GET", "/\(db)/doc").json
        let entry = doc?["_attachments"]?["blob"]
        return Stub(digest: entry?["digest"]?.stringValue ?? "", length: entry?["length"]?.intValue ?? -1)
    }

    struct Stub: Equatable {
        let digest: String
        let length: Int
    }

    /// Runs `settee replicate SOURCE TARGET --create-target ARGS` with `TMPDIR` set to
    /// `tmp`, sampling its VmHWM until it exits. - Returns: the last VmHWM read, in bytes.
    func replicate(_ source: String, _ target: String, tmp: String, _ extra: String...) throws -> Int {
        let process = Process()
        process.executableURL = try SetteeProcess.binaryURL()
        process.arguments = ["replicate", source, target, "--create-target"] + extra
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SETTEE_") }
            .merging(["TMPDIR": tmp]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var peak = 0
        // VmHWM only grows: the last reading before the exit is the run's peak, but for
        // the last few milliseconds (its exit).
        while process.isRunning {
            peak = max(peak, Self.highWaterMark(of: process.processIdentifier) ?? 0)
            usleep(5_000)
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "settee replicate: \(text)")
        #expect(peak > 0)
        return peak
    }

    /// `VmHWM` of `/proc/PID/status` in bytes, nil once the process is gone.
    static func highWaterMark(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            return nil
        }
        return kib * 1024
    }
}

private extension String {
    var dropLastSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
