import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// The real binary over real sockets: what only a running process can show
/// (durability across kill -9, feeds over the wire, framing limits, the config).
@Suite(.serialized) struct LiveServerTests {
    static let auth = ("Authorization", "Basic " + Data("admin:test-password".utf8).base64EncodedString())

    func request(_ settee: SetteeProcess, _ method: String, _ path: String, json: String? = nil) throws -> TestResponse {
        var headers = [Self.auth]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try TestHTTPClient.request(method, URL(string: path, relativeTo: settee.baseURL)!.absoluteURL,
                                          headers: headers, body: Array((json ?? "").utf8))
    }

    @Test func welcomeCarriesThePersistedUUIDAndWritesNeedAnAdmin() throws {
        let dir = try TempDirectory(prefix: "welcome")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        let welcome = try TestHTTPClient.get(settee.baseURL)
        #expect(welcome.status == 200)
        #expect(welcome.json?["couchdb"] == "Welcome")
        let uuid = try String(contentsOfFile: dir.appending(".uuid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(welcome.json?["uuid"]?.stringValue == uuid)
        let anonymous = try TestHTTPClient.request("PUT", settee.baseURL.appendingPathComponent("db"))
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate") == nil)
    }

    /// DESIGN.md: "A 2xx answer to a write means the write is committed and survives kill -9."
    @Test func acknowledgedWritesSurviveKill9() throws {
        let dir = try TempDirectory(prefix: "durable")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        #expect(try request(settee, "PUT", "/db").status == 201)
        var revs: [String: String] = [:]
        for i in 0..<50 {
            let r = try request(settee, "PUT", "/db/doc\(i)", json: #"{"i":\#(i)}"#)
            #expect(r.status == 201)
            revs["doc\(i)"] = r.json?["rev"]?.stringValue
        }
        settee.kill(SIGKILL)
        _ = try settee.waitForExit(timeout: 30)

        let again = try SetteeProcess.start(dataDirectory: dir.path)
        defer { again.kill(SIGKILL) }
        let all = try request(again, "GET", "/db/_all_docs")
        let rows = all.json?["rows"]?.arrayValue ?? []
        #expect(rows.count == 50)
        for row in rows {
            let id = row["id"]?.stringValue ?? ""
            #expect(row["value"]?["rev"]?.stringValue == revs[id], "\(id) lost its acknowledged revision")
        }
    }

    /// The same for attachments: small ones (rows of the blob directory's `small.sqlite`,
    /// or from 16 KiB bytes in its pack file, committed before their revision) and one past
    /// `[attachments] inline_max_bytes` (a blob file), each read back whole after a kill -9.
    @Test func acknowledgedAttachmentsSurviveKill9() throws {
        let dir = try TempDirectory(prefix: "durable-attachments")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        #expect(try request(settee, "PUT", "/db").status == 201)
        var stored: [String: [UInt8]] = [:]
        for i in 0..<20 {
            // 300 KB, then 1,077 to 28,797 bytes: rows below 16 KiB, the pack file from 16,384 (five).
            let bytes = (0..<(i == 0 ? 300_000 : 1_000 + i * i * 77)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            let data = Data(bytes).base64EncodedString()
            let body = #"{"_attachments":{"a.bin":{"content_type":"application/octet-stream","data":"\#(data)"}}}"#
            #expect(try request(settee, "PUT", "/db/doc\(i)", json: body).status == 201)
            stored["doc\(i)"] = bytes
        }
        settee.kill(SIGKILL)
        _ = try settee.waitForExit(timeout: 30)

        let again = try SetteeProcess.start(dataDirectory: dir.path)
        defer { again.kill(SIGKILL) }
        for (id, bytes) in stored {
            let read = try request(again, "GET", "/db/\(id)/a.bin")
            #expect(read.status == 200 && read.body == bytes, "\(id) lost its acknowledged attachment")
        }
    }

    /// Issue "_changes feeds": a continuous feed delivers a write within 100 ms. The
    /// feed is read as bytes arrive; the clock runs from the PUT's answer to the line.
    @Test func continuousFeedDeliversAWriteWithin100ms() throws {
        let dir = try TempDirectory(prefix: "feed")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        #expect(try request(settee, "PUT", "/db").status == 201)
        let feed = try RawConnection(port: settee.baseURL.port ?? 0)
        try feed.send("GET /db/_changes?feed=continuous&since=now&heartbeat=5000 HTTP/1.1\r\nHost: x\r\n"
            + "\(Self.auth.0): \(Self.auth.1)\r\n\r\n")
        #expect(try feed.read(until: { $0.contains("\r\n\r\n") }, timeout: 10), "feed headers")
        var latencies: [Double] = []
        for i in 0..<5 {
            #expect(try request(settee, "PUT", "/db/live\(i)", json: "{}").status == 201)
            let written = Date()
            let arrived = try feed.read(until: { $0.contains("\"id\":\"live\(i)\"") }, timeout: 5)
            #expect(arrived, "change live\(i) never arrived")
            latencies.append(Date().timeIntervalSince(written))
        }
        let median = latencies.sorted()[latencies.count / 2]
        #expect(median < 0.1, "median delivery \(median * 1000) ms")
    }

    /// SIGINT/SIGTERM finish in-flight work and exit 0 even while a feed sleeps
    /// with a one-minute heartbeat: the feed is ended, not waited for.
    @Test func sigtermEndsIdleFeedsAndExitsZero() throws {
        let dir = try TempDirectory(prefix: "feedstop")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        #expect(try request(settee, "PUT", "/db").status == 201)
        let feed = try RawConnection(port: settee.baseURL.port ?? 0)
        try feed.send("GET /db/_changes?feed=continuous&since=now&heartbeat=60000 HTTP/1.1\r\nHost: x\r\n"
            + "\(Self.auth.0): \(Self.auth.1)\r\n\r\n")
        #expect(try feed.read(until: { $0.contains("\r\n\r\n") }, timeout: 10))
        let asked = Date()
        settee.kill(SIGTERM)
        #expect(try settee.waitForExit(timeout: 30) == 0)
        #expect(Date().timeIntervalSince(asked) < 10, "shutdown waited for the feed's heartbeat")
        #expect(try feed.isClosedByPeer(timeout: 5))
    }

    @Test func hostileFramingIsAnsweredAndTheServerServesOn() throws {
        let dir = try TempDirectory(prefix: "framing")
        let ini = dir.appending("settee.ini")
        try "[chttpd]\nmax_http_request_size = 4096\n[couchdb]\nmax_document_size = 1024\n"
            .write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        defer { settee.kill(SIGKILL) }
        let port = settee.baseURL.port ?? 0
        #expect(try request(settee, "PUT", "/db").status == 201)

        let garbage = try RawConnection(port: port)
        try garbage.send("NOT HTTP AT ALL\r\n\r\n")
        #expect(try garbage.read(until: { $0.contains("\r\n\r\n") }, timeout: 5))
        #expect(garbage.received.hasPrefix("HTTP/1.1 400"))
        #expect(try garbage.isClosedByPeer(timeout: 5))

        let huge = try RawConnection(port: port)
        try huge.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
        #expect(try huge.read(until: { $0.contains("\r\n\r\n") }, timeout: 5))
        #expect(huge.received.hasPrefix("HTTP/1.1 431"))

        let body = String(repeating: "x", count: 5000)
        let tooBig = try request(settee, "PUT", "/db/big", json: #"{"a":"\#(body)"}"#)
        #expect(tooBig.status == 413)
        let docTooBig = try request(settee, "PUT", "/db/big", json: #"{"a":"\#(String(repeating: "y", count: 2000))"}"#)
        #expect(docTooBig.status == 413)
        #expect(docTooBig.json?["error"] == "document_too_large")
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        let tooDeep = try request(settee, "PUT", "/db/deep", json: #"{"a":\#(deep)}"#)
        #expect(tooDeep.status == 400)

        // A truncated body: the connection ends mid-body; nothing is stored.
        let truncated = try RawConnection(port: port)
        try truncated.send("PUT /db/cut HTTP/1.1\r\nHost: x\r\n\(Self.auth.0): \(Self.auth.1)\r\n"
            + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":")
        truncated.shutdownWrite()
        _ = try truncated.isClosedByPeer(timeout: 5)
        #expect(try request(settee, "GET", "/db/cut").status == 404)
        #expect(try request(settee, "GET", "/db/big").status == 404)
        #expect(try TestHTTPClient.get(settee.baseURL).status == 200, "the server still serves")
    }

    @Test func keepAliveConnectionServesPipelinedRequests() throws {
        let dir = try TempDirectory(prefix: "pipeline")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        let c = try RawConnection(port: settee.baseURL.port ?? 0)
        try c.send(String(repeating: "GET /_up HTTP/1.1\r\nHost: x\r\n\r\n", count: 3))
        #expect(try c.read(until: { $0.components(separatedBy: "\"status\":\"ok\"").count == 4 }, timeout: 10))
    }
}
