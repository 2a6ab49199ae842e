import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// A server spoken to through `CurlSession` with admin credentials in `base`.
protocol ServerUnderTest: AnyObject {
    /// `http://admin:…@host:port` (no trailing slash).
    var base: String { get }
    var session: CurlSession { get }
}

/// An Apache CouchDB named by `COUCHDB_URL` (admin credentials in the URL); tests
/// that need one are skipped without it (CI has none; it is run against one outside).
final class CouchDBServer: ServerUnderTest {
    static let url = ProcessInfo.processInfo.environment["COUCHDB_URL"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    let base: String
    let session = CurlSession(maxConnections: 4)

    init() throws { base = try #require(Self.url) }
}

/// A real `settee serve` on a free loopback port, spoken to through `CurlSession`.
final class RemoteServer: ServerUnderTest {
    let directory: TempDirectory
    private(set) var process: SetteeProcess
    let session = CurlSession(maxConnections: 4)
    /// HTTPS beside HTTP on this port (a self-signed certificate), when asked for.
    let tlsPort: Int?

    init(https: Bool = false) throws {
        directory = try TempDirectory()
        let tlsPort = https ? try FreePort.find() : nil
        self.tlsPort = tlsPort
        process = try SetteeProcess.start(dataDirectory: directory.path, environment: Self.environment(tlsPort))
    }

    private static func environment(_ tlsPort: Int?) -> [String: String] {
        tlsPort.map { ["SETTEE_TLS_PORT": String($0)] } ?? [:]
    }

    deinit {
        process.kill(SIGTERM)
        _ = try? process.waitForExit()
    }

    var base: String {
        let url = process.baseURL
        let admin = SetteeProcess.defaultAdmin
        return "http://\(admin.name):\(admin.password)@\(url.host ?? "127.0.0.1"):\(url.port ?? 0)"
    }

    /// Stops the server (SIGTERM, or SIGKILL to test durability) and starts it on
    /// the same data directory, on `port` or a new free one.
    func restart(kill signal: Int32 = SIGTERM, port: Int? = nil) throws {
        process.kill(signal)
        _ = try process.waitForExit()
        process = try SetteeProcess.start(dataDirectory: directory.path, port: port, environment: Self.environment(tlsPort))
    }
}

extension ServerUnderTest {
    func url(_ db: String) -> String { base + "/" + db }

    func peer(_ db: String) throws -> RemotePeer {
        RemotePeer(endpoint: try RemoteEndpoint(url: url(db)), session: session)
    }

    /// One request as the admin; the answer's JSON (null when it has none).
    @discardableResult
    func request(_ method: String, _ path: String, json: JSONValue? = nil,
                 accept: String = "application/json") async throws -> (status: Int, json: JSONValue) {
        let endpoint = try RemoteEndpoint(url: base + "/x")
        var headers = [("Accept", accept)] + (endpoint.basicAuthorization.map { [$0] } ?? [])
        if json != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await session.send(RemoteRequest(method: method, url: endpoint.root + path, headers: headers,
                                                            body: json.map { JSONWriter.serialize($0) }))
        return (response.status, (try? JSONReader.parse(response.body)) ?? .null)
    }

    /// Every document of `db` as replication must carry it: each leaf's history,
    /// deleted flag and attachment digests (`_bulk_get` of every leaf), by id.
    func pictures(_ db: String) async throws -> [String: [String]] {
        let changes = try await request("GET", "/\(db)/_changes").json
        let ids = (changes["results"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        var pictures: [String: [String]] = [:]
        for start in stride(from: 0, to: ids.count, by: 2000) {
            let docs: [JSONValue] = ids[start..<min(start + 2000, ids.count)].map { ["id": .string($0)] }
            let answer = try await request("POST", "/\(db)/_bulk_get?revs=true", json: ["docs": .array(docs)]).json
            for result in answer["results"]?.arrayValue ?? [] {
                guard let id = result["id"]?.stringValue else { continue }
                pictures[id] = (result["docs"]?.arrayValue ?? []).compactMap { $0["ok"] }.map(Self.picture).sorted()
            }
        }
        return pictures
    }

    private static func picture(_ doc: JSONValue) -> String {
        let history = doc["_revisions"]?["ids"]?.arrayValue?.compactMap(\.stringValue).joined(separator: "<") ?? ""
        let attachments = (doc["_attachments"]?.objectValue ?? JSONObject()).map { member in
            "\(member.key)=\(member.value["digest"]?.stringValue ?? "")/\(member.value["revpos"]?.intValue ?? 0)"
        }.sorted()
        return "\(doc["_rev"]?.stringValue ?? "") \(history)\(doc["_deleted"] == true ? " deleted" : "") \(attachments)"
    }

    /// Waits until `db` holds `count` documents (deleted ones too), waking on its
    /// longpoll feed rather than sleeping; false if that takes longer than `timeout`.
    func waitForDocuments(_ db: String, count: Int, timeout: Duration = .seconds(60)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let info = try await request("GET", "/\(db)").json
            let total = (info["doc_count"]?.intValue ?? 0) + (info["doc_del_count"]?.intValue ?? 0)
            if total >= count { return true }
            let since = info["update_seq"]?.stringValue ?? "0"
            try await request("GET", "/\(db)/_changes?feed=longpoll&timeout=2000&limit=1&since=\(since)")
        }
        return false
    }

    /// `count` documents, plus a conflict, a deletion, a design document, a local
    /// document and attachments (5 MB binary, and text that is stored gzip'd).
    func fill(_ db: String, count: Int) async throws {
        #expect(try await request("PUT", "/\(db)").status == 201)
        for start in stride(from: 0, to: count, by: 1000) {
            let docs: [JSONValue] = (start..<min(start + 1000, count)).map {
                ["_id": .string(String(format: "doc%05d", $0)), "n": .int($0)]
            }
            #expect(try await request("POST", "/\(db)/_bulk_docs", json: ["docs": .array(docs)]).status == 201)
        }
        let first = try await request("PUT", "/\(db)/conflicted", json: ["side": "a"]).json
        let base = try #require(first["rev"]?.stringValue)
        try await request("PUT", "/\(db)/conflicted", json: ["_rev": .string(base), "side": "a2"])
        let blob = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }).base64EncodedString()
        let branch: JSONValue = [
            "_id": "conflicted", "_rev": "2-0000000000000000000000000000abcd",
            "_revisions": ["start": 2, "ids": ["0000000000000000000000000000abcd", .string(String(base.dropFirst(2)))]],
            "side": "b",
            // 5 MB: a blob file; 60 KB: in the blob directory's pack file; notes.txt: a row.
            "_attachments": ["big.bin": ["content_type": "application/octet-stream", "data": .string(blob)],
                             "thumb.bin": ["content_type": "image/png",
                                           "data": .string(Data((0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }).base64EncodedString())],
                             "notes.txt": ["content_type": "text/plain",
                                           "data": .string(Data(String(repeating: "couch ", count: 300).utf8).base64EncodedString())]],
        ]
        #expect(try await request("POST", "/\(db)/_bulk_docs", json: ["new_edits": false, "docs": [branch]]).status == 201)
        let gone = try await request("PUT", "/\(db)/gone", json: [:]).json["rev"]?.stringValue ?? ""
        #expect(try await request("DELETE", "/\(db)/gone?rev=\(gone)").status == 200)
        #expect(try await request("PUT", "/\(db)/_design/app", json: ["views": [:]]).status == 201)
        #expect(try await request("PUT", "/\(db)/_local/private", json: ["mine": true]).status == 201)
    }
}

/// Runs the `settee` binary with `arguments`; its exit status and output (stdout and stderr).
func runSetteeCLI(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = try SetteeProcess.binaryURL()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}
