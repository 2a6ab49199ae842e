import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue #47 item 4: attachment bytes damaged while the server is stopped are never
/// served as the attachment. Over the wire: a whole GET of a damaged blob file ends short
/// of its `Content-Length` (the connection closes), a Range of it and a damaged packed
/// blob answer 500 `file_corruption` before any byte, and the log names the attachment.
@Suite(.serialized) struct AttachmentDamageTests {
    static let file = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
    static let packed = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 5 &+ $0 >> 7) }

    func put(_ settee: SetteeProcess, _ id: String, _ bytes: [UInt8]) throws {
        let data = Data(bytes).base64EncodedString()
        let body = #"{"_attachments":{"a.bin":{"content_type":"application/octet-stream","data":"\#(data)"}}}"#
        #expect(try settee.adminRequest("PUT", "/db/\(id)", json: body).status == 201)
    }

    /// Changes one byte of the first file under `root` whose name passes `isTarget` and
    /// that holds `bytes[from..<from + 64]`, in the middle of that run.
    func damage(under root: String, holding bytes: [UInt8], from: Int, where isTarget: (String) -> Bool) throws {
        let signature = Array(bytes[from..<from + 64])
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for name in files where isTarget((name as NSString).lastPathComponent) {
            let path = (root as NSString).appendingPathComponent(name)
            var content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            guard let found = content.firstRange(of: signature) else { continue }
            content[found.lowerBound + 32] ^= 0xFF
            try Data(content).write(to: URL(fileURLWithPath: path))
            return
        }
        Issue.record("no file under \(root) holds the bytes to damage")
    }

    @Test func damagedBlobsAreNeverServedWhole() throws {
        let dir = try TempDirectory(prefix: "attachment-damage")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        #expect(try settee.adminRequest("PUT", "/db").status == 201)
        try put(settee, "f", Self.file)
        try put(settee, "p", Self.packed)
        settee.kill(SIGTERM)
        _ = try settee.waitForExit(timeout: 30)
        // A blob file is named by 32 hex digits; the pack file is `pack`.
        try damage(under: dir.path, holding: Self.file, from: 150_000) { $0.count == 32 }
        try damage(under: dir.path, holding: Self.packed, from: 10_000) { $0 == "pack" }

        let again = try SetteeProcess.start(dataDirectory: dir.path)
        defer { again.kill(SIGKILL) }
        let whole = try again.adminRequest("GET", "/db/f/a.bin")
        #expect(whole.status == 200 && whole.header("Content-Length") == "300000")
        #expect(whole.body.count < Self.file.count, "a damaged blob was served full length")
        let auth = ("Authorization", "Basic " + Data("admin:test-password".utf8).base64EncodedString())
        let range = try TestHTTPClient.request("GET", URL(string: again.baseURL.absoluteString + "db/f/a.bin")!,
                                               headers: [auth, ("Range", "bytes=0-99")])
        #expect(range.status == 500 && range.json?["error"] == "file_corruption")
        let pack = try again.adminRequest("GET", "/db/p/a.bin")
        #expect(pack.status == 500 && pack.json?["error"] == "file_corruption")
        #expect(again.waitForOutput(containing: "attachment damaged: database db document f attachment a.bin", timeout: 10))
        #expect(again.waitForOutput(containing: "attachment damaged: database db document p attachment a.bin", timeout: 10))
        // The rest keeps serving.
        #expect(try again.adminRequest("PUT", "/db/after", json: "{}").status == 201)
    }

    /// 16 bytes changed in a frame of `small.sqlite-wal` after a kill -9: SQLite drops
    /// that frame and every later one, so the small blobs committed there are gone. Their
    /// attachments answer 500 `file_corruption` with a log line naming them, not 404.
    @Test func smallBlobsLostFromTheirWALAreDamage() throws {
        let dir = try TempDirectory(prefix: "small-wal-damage")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        #expect(try settee.adminRequest("PUT", "/db").status == 201)
        for i in 0..<20 { try put(settee, "d\(i)", (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* (i + 3)) }) }
        settee.kill(SIGKILL)
        _ = try settee.waitForExit(timeout: 30)
        let wal = dir.appending("db.couch.blobs/small.sqlite-wal")
        let size = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
        let frame = 24 + 32_768  // small.sqlite's pages are 32 KiB
        let frames = (size - 32) / frame
        try #require(frames > 4, "the small blobs are in the WAL")
        let handle = try #require(FileHandle(forUpdatingAtPath: wal))
        try handle.seek(toOffset: UInt64(32 + (frames / 2) * frame + 24 + 1_000))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 16))
        try handle.close()

        let again = try SetteeProcess.start(dataDirectory: dir.path)
        defer { again.kill(SIGKILL) }
        let last = try again.adminRequest("GET", "/db/d19/a.bin")
        #expect(last.status == 500 && last.json?["error"] == "file_corruption", "\(last.status) \(last.text.prefix(200))")
        #expect(again.waitForOutput(containing: "attachment damaged: database db document d19 attachment a.bin", timeout: 10))
        #expect(try again.adminRequest("GET", "/db/d0/a.bin").status == 200)
    }
}

