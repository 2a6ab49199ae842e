import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport

/// A real `settee serve` on a free loopback port, spoken to through `CurlSession`.
final class RemoteServer {
    let directory: TempDirectory
    private(set) var process: SetteeProcess
    let session = CurlSession(maxConnections: 4)

    init() throws {
        directory = try TempDirectory()
        process = try SetteeProcess.start(dataDirectory: directory.path)
    }

    deinit {
        process.kill(SIGTERM)
        _ = try? process.waitForExit()
    }

    /// `http://admin:…@127.0.0.1:PORT` (no trailing slash).
    var base: String {
        let url = process.baseURL
        let admin = SetteeProcess.defaultAdmin
        return "http://\(admin.name):\(admin.password)@\(url.host ?? "127.0.0.1"):\(url.port ?? 0)"
    }

    func url(_ db: String) -> String { base + "/" + db }

    func peer(_ db: String) throws -> RemotePeer {
        RemotePeer(endpoint: try RemoteEndpoint(url: url(db)), session: session)
    }

    /// Stops the server (SIGTERM, or SIGKILL to test durability) and starts it on
    /// the same data directory, on `port` or a new free one.
    func restart(kill signal: Int32 = SIGTERM, port: Int? = nil) throws {
        process.kill(signal)
        _ = try process.waitForExit()
        process = try SetteeProcess.start(dataDirectory: directory.path, port: port)
    }

    /// One request as the admin; the answer's JSON (null when it has none).
    @discardableResult
    func request(_ method: String, _ path: String, json: JSONValue? = nil,
                 accept: String = "application/json") async throws -> (status: Int, json: JSONValue) {
        let endpoint = try RemoteEndpoint(url: base + "/x")
        var headers = endpoint.headers + [("Accept", accept)]
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
}
