import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport

/// Three real `settee` processes in continuous two-way sync through `_replicator`
/// documents (peer i pushes to and pulls from peer i+1), each killed with SIGKILL and
/// started again on its own port and data directory; and the checks of a crash loop
/// (issue 44 item 3): what every peer holds, and what each checkpoint claims.
final class CrashLoopPeers: @unchecked Sendable {
    static let db = "crash"
    /// One replication: the peer whose `_replicator` document runs it, and its ends.
    struct Job { let owner: Int; let docID: String; let source: Int; let target: Int }

    let directory: TempDirectory
    let ports: [Int]
    private let lock = NSLock()
    private var running: [SetteeProcess]
    /// Every incarnation's output, peer by peer, oldest first (kept after a kill).
    private var incarnations: [[SetteeProcess]]
    let jobs: [Job]

    init() throws {
        directory = try TempDirectory(prefix: "crashloop")
        ports = try (0..<3).map { _ in try FreePort.find() }
        running = []
        for index in 0..<3 { running.append(try Self.launch(directory, index, ports[index])) }
        incarnations = running.map { [$0] }
        jobs = (0..<3).flatMap { i in [Job(owner: i, docID: "push", source: i, target: (i + 1) % 3),
                                       Job(owner: i, docID: "pull", source: (i + 1) % 3, target: i)] }
    }

    private static func launch(_ directory: TempDirectory, _ index: Int, _ port: Int) throws -> SetteeProcess {
        try SetteeProcess.start(dataDirectory: directory.appending("peer\(index)"), port: port,
                                environment: ["SETTEE_LOG_LEVEL": "info"])
    }

    func peer(_ index: Int) -> SetteeProcess { lock.withLock { running[index] } }

    /// SIGKILL, wait for the exit, start again on the same port and data directory.
    func crash(_ index: Int) throws {
        let victim = peer(index)
        victim.kill(SIGKILL)
        try victim.waitForExit()
        let next = try Self.launch(directory, index, ports[index])
        lock.withLock {
            running[index] = next
            incarnations[index].append(next)
        }
    }

    func stop() { for index in 0..<3 { peer(index).kill(SIGKILL) } }

    /// Every incarnation's output of `index`, oldest first.
    func outputs(_ index: Int) -> [String] { lock.withLock { incarnations[index] }.map(\.output) }

    /// `method path` on peer `index` as the admin; nil when it does not answer (killed).
    func call(_ index: Int, _ method: String, _ path: String, _ json: String? = nil) -> TestResponse? {
        try? peer(index).adminRequest(method, path, json: json)
    }

    func url(_ index: Int) -> String {
        let admin = SetteeProcess.defaultAdmin
        return "http://\(admin.name):\(admin.password)@127.0.0.1:\(ports[index])/\(Self.db)"
    }

    /// The database and the `_replicator` documents on every peer.
    func setUp() {
        for index in 0..<3 {
            _ = call(index, "PUT", "/\(Self.db)")
            _ = call(index, "PUT", "/_replicator")
        }
        for job in jobs {
            let source = job.source == job.owner ? Self.db : url(job.source)
            let target = job.target == job.owner ? Self.db : url(job.target)
            let body: JSONValue = ["source": .string(source), "target": .string(target), "continuous": true]
            _ = call(job.owner, "PUT", "/_replicator/\(job.docID)", JSONWriter.string(body))
        }
    }

    /// The job's replication id, once it has checkpointed past 0 (`_scheduler/docs`).
    func checkpointedID(_ job: Job) -> String? {
        guard let doc = call(job.owner, "GET", "/_scheduler/docs/_replicator/\(job.docID)")?.json,
              let seq = doc["info"]?["checkpointed_source_seq"], Self.number(seq) ?? 0 > 0 else { return nil }
        return doc["id"]?.stringValue?.split(separator: "+").first.map(String.init)
    }

    /// A sequence's number: CouchDB's opaque `N-...` strings and plain integers.
    static func number(_ seq: JSONValue) -> Int? {
        seq.intValue ?? seq.stringValue.flatMap { Int($0.split(separator: "-").first ?? "") }
    }

    /// id → sorted leaf revisions (`_changes?style=all_docs`), with each row's seq.
    func leaves(_ index: Int) -> [String: (revs: [String], seq: Int)]? {
        guard let rows = call(index, "GET", "/\(Self.db)/_changes?style=all_docs")?.json?["results"]?.arrayValue
        else { return nil }
        var out: [String: (revs: [String], seq: Int)] = [:]
        for row in rows {
            guard let id = row["id"]?.stringValue, let seq = row["seq"].flatMap(Self.number) else { return nil }
            out[id] = ((row["changes"]?.arrayValue ?? []).compactMap { $0["rev"]?.stringValue }.sorted(), seq)
        }
        return out
    }

    /// Of `wanted` (id → revs), what peer `index` lacks (`_revs_diff`); nil when it does not answer.
    func missing(_ index: Int, _ wanted: [String: [String]]) -> [String: [String]]? {
        let body = JSONValue.object(JSONObject(wanted.map { ($0.key, .array($0.value.map { .string($0) })) }))
        guard let response = call(index, "POST", "/\(Self.db)/_revs_diff", JSONWriter.string(body)),
              response.status == 200, let diff = response.json?.objectValue else { return nil }
        var out: [String: [String]] = [:]
        for member in diff { out[member.key] = (member.value["missing"]?.arrayValue ?? []).compactMap(\.stringValue) }
        return out
    }

    /// Changes of the job's source up to the target's checkpoint that the target lacks
    /// (nil: a peer did not answer, or no checkpoint yet). A copy from the third peer
    /// can hide a violation, never invent one.
    func checkpointViolations(_ job: Job, id: String) -> Int? {
        guard let local = call(job.target, "GET", "/\(Self.db)/_local/\(id)"), local.status == 200,
              let seq = local.json?["source_last_seq"].flatMap(Self.number),
              let rows = leaves(job.source) else { return nil }
        var covered: [String: [String]] = [:]
        for (id, row) in rows where row.seq <= seq { covered[id] = row.revs }
        return missing(job.target, covered).map { $0.values.reduce(0) { $0 + $1.count } }
    }

    /// Every leaf of every document on peer `index`, canonical: ancestry, deletion,
    /// body and attachment digests (`_bulk_get?revs=true`).
    func trees(_ index: Int, _ leaves: [String: [String]]) -> [String: String]? {
        let docs = leaves.sorted { $0.key < $1.key }.flatMap { id, revs in
            revs.map { JSONValue.object(["id": .string(id), "rev": .string($0)]) }
        }
        var out: [String: String] = [:]
        for start in stride(from: 0, to: docs.count, by: 200) {
            let body: JSONValue = ["docs": .array(Array(docs[start..<min(start + 200, docs.count)]))]
            guard let results = call(index, "POST", "/\(Self.db)/_bulk_get?revs=true", JSONWriter.string(body))?
                .json?["results"]?.arrayValue else { return nil }
            for doc in results.flatMap({ $0["docs"]?.arrayValue ?? [] }).map({ $0["ok"] }) {
                guard let doc, let id = doc["_id"]?.stringValue, let rev = doc["_rev"]?.stringValue else { return nil }
                out[id + " " + rev] = Self.canonical(doc)
            }
        }
        return out
    }

    /// JSON text with object members sorted and attachments reduced to name, digest and length.
    static func canonical(_ value: JSONValue) -> String {
        if let object = value.objectValue {
            let members = object.members.sorted { $0.key < $1.key }.map { member -> String in
                var value = member.value
                if member.key == "_attachments", let atts = value.objectValue {
                    value = .object(JSONObject(atts.map { ($0.key, ["digest": $0.value["digest"] ?? .null,
                                                                    "length": $0.value["length"] ?? .null]) }))
                }
                return JSONWriter.string(.string(member.key)) + ":" + canonical(value)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
        if let array = value.arrayValue { return "[" + array.map(canonical).joined(separator: ",") + "]" }
        return JSONWriter.string(value)
    }
}
