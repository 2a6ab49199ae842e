import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport

/// Real `settee` processes that replicate one database between them, for the conflict
/// policy tests: requests as the admin, one-shot replications, polling with a deadline.
struct ConflictPeers {
    let directory: TempDirectory
    let peers: [SetteeProcess]

    init(_ count: Int, prefix: String) throws {
        directory = try TempDirectory(prefix: prefix)
        var started: [SetteeProcess] = []
        for index in 0..<count {
            started.append(try SetteeProcess.start(dataDirectory: directory.appending("peer\(index)")))
        }
        peers = started
    }

    func stop() { for peer in peers { peer.kill(SIGKILL) } }

    static func call(_ peer: SetteeProcess, _ method: String, _ path: String, _ json: String? = nil) throws -> TestResponse {
        try peer.adminRequest(method, path, json: json)
    }

    /// `db` on `peer`, as a URL another server can replicate with (admin credentials in it).
    static func url(_ peer: SetteeProcess, _ db: String) -> String {
        let admin = SetteeProcess.defaultAdmin
        let base = peer.baseURL.absoluteString.replacingOccurrences(of: "http://", with: "http://\(admin.name):\(admin.password)@")
        return base + db
    }

    /// A one-shot replication run by `runner` from `source` to `target` (URLs): its answer.
    static func replicate(on runner: SetteeProcess, from source: String, to target: String) throws -> TestResponse {
        let body: JSONValue = ["source": .string(source), "target": .string(target)]
        return try call(runner, "POST", "/_replicate", JSONWriter.string(body))
    }

    /// Replicates `db` from `from` to `to` (run by the target, as a pull).
    @discardableResult
    static func replicate(_ db: String, from: SetteeProcess, to: SetteeProcess) throws -> TestResponse {
        try replicate(on: to, from: url(from, db), to: url(to, db))
    }

    /// Documents written by a finished one-shot replication: none when it answers
    /// `no_changes` (its `history` then starts with an earlier session's figures).
    static func docsWritten(_ response: TestResponse) -> Int? {
        if response.json?["no_changes"]?.boolValue == true { return 0 }
        return response.json?["history"]?.arrayValue?.first?["docs_written"]?.intValue
    }

    /// Polls `condition` until it holds or `timeout` passes: whether it held.
    static func eventually(_ timeout: TimeInterval = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// How many documents of `db` on `peer` are in conflict (`_conflicts`).
    static func conflictCount(_ peer: SetteeProcess, _ db: String) throws -> Int? {
        try call(peer, "GET", "/\(db)/_conflicts").json?["total_rows"]?.intValue
    }

    /// `id`'s winning revision and its live conflicts on `peer`.
    static func winner(_ peer: SetteeProcess, _ db: String, _ id: String) throws -> (rev: String?, conflicts: [String], body: JSONValue?) {
        let body = try call(peer, "GET", "/\(db)/\(id)?conflicts=true").json
        return (body?["_rev"]?.stringValue, body?["_conflicts"]?.arrayValue?.compactMap(\.stringValue) ?? [], body)
    }

    /// Every leaf of `id` on `peer` (`open_revs=all`), as "rev" or "rev (deleted)", sorted.
    static func leaves(_ peer: SetteeProcess, _ db: String, _ id: String) throws -> [String] {
        let response = try TestHTTPClient.request(
            "GET", URL(string: peer.baseURL.absoluteString + "\(db)/\(id)?open_revs=all")!,
            headers: [("Accept", "application/json"), ("Authorization", authorization)])
        return (response.json?.arrayValue ?? []).compactMap { $0["ok"] }.compactMap { leaf in
            guard let rev = leaf["_rev"]?.stringValue else { return nil }
            return leaf["_deleted"]?.boolValue == true ? rev + " (deleted)" : rev
        }.sorted()
    }

    static var authorization: String {
        let admin = SetteeProcess.defaultAdmin
        return "Basic " + Data("\(admin.name):\(admin.password)".utf8).base64EncodedString()
    }
}
