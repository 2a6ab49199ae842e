import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Issue #44, item 4, sneakernet: two data directories that never share a network sync
/// through a third one (the "stick") named by `file://` URLs, in both directions; the next
/// carry resumes from the checkpoints the last one left on both sides; a data directory a
/// running server holds is refused, by `settee replicate`, `settee sync` and `settee check`
/// (which open their `--data-dir` under the lock `settee serve` takes) and for `file://`.
@Suite(.serialized) struct SneakernetTests {
    /// Runs `settee ARGUMENTS`: its exit status, and its standard output then standard error.
    func settee(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try PairingTests.settee(arguments)
        return (run.status, run.output + run.errors)
    }

    /// Writes documents `ids` into `notes` of the data directory at `path` through a server
    /// started and stopped for it (creating the database when needed).
    func write(_ ids: [String], into path: String) throws {
        let server = try SetteeProcess.start(dataDirectory: path)
        defer { server.kill(SIGKILL) }
        _ = try server.adminRequest("PUT", "/notes")
        for id in ids { #expect(try server.adminRequest("PUT", "/notes/\(id)", json: #"{"from":"\#(path)"}"#).status == 201) }
        server.kill(SIGTERM)
        _ = try server.waitForExit(timeout: 30)
    }

    /// Attaches `bytes` to a new document `id` of `notes` in the data directory at `path`, or
    /// (`read`) gives back the attachment's bytes from there.
    func attachment(_ id: String, in path: String, writing bytes: [UInt8]? = nil) throws -> [UInt8] {
        let server = try SetteeProcess.start(dataDirectory: path)
        defer { server.kill(SIGKILL) }
        let admin = SetteeProcess.defaultAdmin
        let auth = "Basic " + Data("\(admin.name):\(admin.password)".utf8).base64EncodedString()
        let url = URL(string: server.baseURL.absoluteString + "notes/\(id)/photo.bin")!
        let response = try TestHTTPClient.request(bytes == nil ? "GET" : "PUT", url,
                                                  headers: [("Authorization", auth), ("Content-Type", "application/octet-stream")],
                                                  body: bytes ?? [])
        #expect(response.status == (bytes == nil ? 200 : 201), "\(response.text)")
        server.kill(SIGTERM)
        _ = try server.waitForExit(timeout: 30)
        return response.body
    }

    /// The ids of `notes` in the data directory at `path`, and its checkpoint documents.
    func contents(of path: String) throws -> (ids: Set<String>, checkpoints: [JSONValue]) {
        let server = try SetteeProcess.start(dataDirectory: path)
        defer { server.kill(SIGKILL) }
        let all = try server.adminRequest("GET", "/notes/_all_docs").json?["rows"]?.arrayValue ?? []
        let local = try server.adminRequest("GET", "/notes/_local_docs?include_docs=true").json?["rows"]?.arrayValue ?? []
        server.kill(SIGTERM)
        _ = try server.waitForExit(timeout: 30)
        return (Set(all.compactMap { $0["id"]?.stringValue }), local.compactMap { $0["doc"] })
    }

    @Test func twoDirectoriesSyncThroughAStickBothWaysAndResume() throws {
        let dir = try TempDirectory(prefix: "sneakernet")
        let a = dir.appending("a"), b = dir.appending("b"), stick = "file://" + dir.appending("stick") + "/notes"
        try write(["a1", "a2", "a3"], into: a)
        try write(["b1"], into: b)
        let photo = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        _ = try attachment("photo", in: a, writing: photo)

        // A → stick → B, then B → stick → A.
        let out = try settee(["replicate", "notes", stick, "--create-target", "--data-dir", a])
        #expect(out.status == 0 && out.output.contains("4 read, 4 written"), "\(out.output)")
        let into = try settee(["replicate", stick, "notes", "--data-dir", b])
        #expect(into.status == 0 && into.output.contains("4 written"), "\(into.output)")
        #expect(try attachment("photo", in: b) == photo, "the attachment did not arrive whole")
        #expect(try settee(["replicate", "notes", stick, "--data-dir", b]).status == 0)
        let back = try settee(["replicate", stick, "notes", "--data-dir", a])
        #expect(back.status == 0 && back.output.contains("1 read, 1 written"), "\(back.output)")
        let everything: Set = ["a1", "a2", "a3", "b1", "photo"]
        #expect(try contents(of: a).ids == everything)
        #expect(try contents(of: b).ids == everything)

        // The next carry, with `settee sync` this time: each direction goes on from its checkpoint.
        try write(["a4"], into: a)
        let again = try settee(["sync", "notes", stick, "--data-dir", a])
        #expect(again.status == 0, "\(again.output)")
        #expect(try settee(["sync", stick, "notes", "--data-dir", b]).status == 0)
        #expect(try contents(of: b).ids == everything.union(["a4"]))
        // And back: B's next change reaches A.
        try write(["b2"], into: b)
        #expect(try settee(["sync", "notes", stick, "--data-dir", b]).status == 0)
        #expect(try settee(["sync", stick, "notes", "--data-dir", a]).status == 0)
        #expect(try contents(of: a).ids == everything.union(["a4", "b2"]))
        let stickContents = try contents(of: dir.appending("stick"))
        // Each of the four replications with the stick (A and B, each way) carried changes twice,
        // first by `replicate`, then by `sync` (a run with nothing new records no session): the
        // stick holds its checkpoint, and the second session began where the first ended.
        let sessions = stickContents.checkpoints.compactMap { $0["history"]?.arrayValue }.filter { $0.count >= 2 }
        #expect(sessions.count == 4, "checkpoints on the stick: \(stickContents.checkpoints)")
        for history in sessions {
            #expect(history[0]["start_last_seq"] == history[1]["end_last_seq"], "\(history)")
            #expect(history[0]["start_last_seq"]?.intValue ?? 0 > 0, "\(history)")
        }
    }

    @Test func aBackupIsAnEndpointToo() throws {
        let dir = try TempDirectory(prefix: "sneakernet-backup")
        let a = dir.appending("a"), copy = dir.appending("copy")
        try write(["a1", "a2"], into: a)
        #expect(try settee(["backup", "notes", copy, "--data-dir", a]).status == 0)
        let pulled = try settee(["replicate", "file://\(copy)/notes", "notes", "--create-target", "--data-dir", dir.appending("c")])
        #expect(pulled.status == 0 && pulled.output.contains("2 read, 2 written"), "\(pulled.output)")
        #expect(try contents(of: dir.appending("c")).ids == ["a1", "a2"])
        let missing = try settee(["replicate", "file://\(copy)/other", "notes", "--data-dir", dir.appending("c")])
        #expect(missing.status == 1 && missing.output.contains("file://\(copy)/other does not exist"), "\(missing.output)")
        // A directory that is not there (a mistyped path, a stick not mounted) is not made, unless
        // it is a target to create.
        let absent = dir.appending("absent")
        let notThere = try settee(["replicate", "notes", "file://\(absent)/notes", "--data-dir", a])
        #expect(notThere.status == 1 && notThere.output.contains("file://\(absent)/notes does not exist"), "\(notThere.output)")
        #expect(!FileManager.default.fileExists(atPath: absent))
    }

    @Test func aDirectoryARunningServerHoldsIsRefused() throws {
        let dir = try TempDirectory(prefix: "sneakernet-locked")
        let a = dir.appending("a"), b = dir.appending("b")
        try write(["a1"], into: a)
        try write(["b1"], into: b)
        let server = try SetteeProcess.start(dataDirectory: a)
        defer { server.kill(SIGKILL) }

        let named = try settee(["replicate", "file://\(a)/notes", "notes", "--data-dir", b])
        #expect(named.status == 1 && named.output.contains("the data directory \(a) is in use by another process"),
                "\(named.output)")
        for arguments in [["replicate", "notes", "file://\(b)/notes", "--data-dir", a],
                          ["sync", "notes", "file://\(b)/notes", "--data-dir", a],
                          ["check", "--data-dir", a], ["check", "--repair", "--data-dir", a],
                          ["restore", b, "notes", "--data-dir", a]] {
            let refused = try settee(arguments)
            #expect(refused.status == 1 && refused.output.contains("is in use by another process"),
                    "\(arguments): \(refused.output)")
        }
        // The server: a directory another server holds answers a clear 409, its own one a 400;
        // a directory nobody holds replicates.
        let other = try SetteeProcess.start(dataDirectory: b)
        let held = try server.adminRequest("POST", "/_replicate", json: #"{"source":"file://\#(b)/notes","target":"notes"}"#)
        #expect(held.status == 409 && held.text.contains("the data directory \(b) is in use by another process"), "\(held.text)")
        other.kill(SIGTERM)
        _ = try other.waitForExit(timeout: 30)
        let own = try server.adminRequest("POST", "/_replicate", json: #"{"source":"notes","target":"file://\#(a)/notes"}"#)
        #expect(own.status == 400 && own.text.contains("in this node's own data directory"), "\(own.text)")
        let pulled = try server.adminRequest("POST", "/_replicate", json: #"{"source":"file://\#(b)/notes","target":"notes"}"#)
        #expect(pulled.status == 200, "\(pulled.text)")
        #expect(try server.adminRequest("GET", "/notes/b1").status == 200)
        // Its own directory named by URL, from the command line: said so, not taken for another process.
        let itself = try settee(["replicate", "notes", "file://\(b)/../b/other", "--create-target", "--data-dir", b])
        #expect(itself.status == 1 && itself.output.contains("is in this node's own data directory"), "\(itself.output)")
        // Released once the replication is over: the command line may open it now.
        #expect(try settee(["replicate", "notes", "file://\(dir.appending("stick"))/notes", "--create-target",
                            "--data-dir", b]).status == 0)
    }
}
