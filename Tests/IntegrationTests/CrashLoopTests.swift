import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Crash loops mid-sync (issue 44 item 3), the short version of bench/crashloop: three
/// peers in continuous two-way sync with attachments and conflicts, killed with SIGKILL
/// six times at seeded random moments over ~30 s while a writer writes to random peers.
@Suite(.serialized) struct CrashLoopTests {
    /// Writes to random peers until stopped; keeps every acknowledged (id, rev).
    final class Writer: @unchecked Sendable {
        private let peers: CrashLoopPeers
        private let lock = NSLock()
        private var stopped = false
        private var done = false
        private(set) var acknowledged: [(id: String, rev: String)] = []
        private var random = SplitMix(state: 4403)

        init(_ peers: CrashLoopPeers) { self.peers = peers }

        func start() { Thread.detachNewThread { [self] in loop() } }

        /// Stops and waits for the write in flight (polling with a deadline).
        func stop() {
            lock.withLock { stopped = true }
            let deadline = Date().addingTimeInterval(60)
            while !lock.withLock({ done }) && Date() < deadline { usleep(10_000) }
        }

        var acked: [(id: String, rev: String)] { lock.withLock { acknowledged } }

        private func loop() {
            var count = 0
            while !lock.withLock({ stopped }) {
                count += 1
                write(count)
                usleep(15_000)  // paces the load on two shared cores; not a synchronisation
            }
            lock.withLock { done = true }
        }

        private func write(_ count: Int) {
            let index = Int(random.next() % 3)
            let kind = random.next() % 10
            let db = CrashLoopPeers.db
            if kind < 6 {
                let id = String(format: "w%05d", count)
                var body: JSONObject = ["n": .int(count)]
                if kind < 2 {
                    let bytes = (0..<Int(1_000 + random.next() % 20_000)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    body.append("_attachments", ["a.bin": ["content_type": "application/octet-stream",
                                                           "data": .string(Data(bytes).base64EncodedString())]])
                }
                record(id, peers.call(index, "PUT", "/\(db)/\(id)", JSONWriter.string(.object(body))))
                return
            }
            // An edit of a shared id on one peer: concurrent with the others', a conflict.
            let id = "s\(random.next() % 8)"
            guard let current = peers.call(index, "GET", "/\(db)/\(id)"), [200, 404].contains(current.status) else { return }
            var body: JSONObject = ["n": .int(count)]
            if let rev = current.json?["_rev"] { body.append("_rev", rev) }
            if let atts = current.json?["_attachments"] { body.append("_attachments", atts) }
            if kind == 9, let rev = current.json?["_rev"]?.stringValue {
                let put = try? TestHTTPClient.request(
                    "PUT", URL(string: "http://127.0.0.1:\(peers.ports[index])/\(db)/\(id)/x\(count % 3).bin?rev=\(rev)")!,
                    headers: [("Authorization", ConflictPeers.authorization), ("Content-Type", "application/octet-stream")],
                    body: Array("attachment \(count)".utf8))
                record(id, put)
                return
            }
            record(id, peers.call(index, "PUT", "/\(db)/\(id)", JSONWriter.string(.object(body))))
        }

        private func record(_ id: String, _ response: TestResponse?) {
            guard let response, [201, 202].contains(response.status),
                  let rev = response.json?["rev"]?.stringValue else { return }
            lock.withLock { acknowledged.append((id, rev)) }
        }
    }

    /// Six SIGKILLs at seeded random moments; then identical trees everywhere, every
    /// acknowledged write on every peer, no checkpoint past a change its target lacked
    /// (checked after each restart and at the end), and no job resumed from 0.
    @Test(.timeLimit(.minutes(3))) func threePeersSurviveKillsMidSync() throws {
        let peers = try CrashLoopPeers()
        defer { peers.stop() }
        peers.setUp()
        var wanted = Self.seedConflicts(peers)
        let writer = Writer(peers)
        writer.start()
        // Every job has checkpointed before the first kill: from then on, a start from 0 is a resync.
        var ids: [String] = []
        let armed = try ConflictPeers.eventually(60) {
            ids = peers.jobs.compactMap(peers.checkpointedID)
            return ids.count == peers.jobs.count
        }
        try #require(armed, "every job's first checkpoint")
        let checks = try Self.killSixTimes(peers, ids: ids)
        writer.stop()
        let acked = writer.acked
        for write in acked { wanted[write.id, default: []].append(write.rev) }
        var leaves: [String: [String]] = [:]
        let converged = ConflictPeers.eventually(90) {
            let maps = (0..<3).map { peers.leaves($0)?.mapValues(\.revs) }
            guard let first = maps[0], maps.allSatisfy({ $0 == first }) else { return false }
            leaves = first
            return (0..<3).allSatisfy { peers.missing($0, wanted)?.values.allSatisfy(\.isEmpty) == true }
        }
        #expect(converged, "the peers converge with every acknowledged write")
        #expect(acked.count > 100)
        #expect(checks > 0)
        #expect(leaves.values.contains { $0.count > 1 }, "some document is in conflict")
        let trees = (0..<3).map { peers.trees($0, leaves) }
        #expect(trees[0] != nil && trees[0]?.count == leaves.values.reduce(0) { $0 + $1.count })
        #expect(trees[0]?.values.contains { $0.contains("\"digest\"") } == true, "attachments replicated")
        #expect(trees[1] == trees[0] && trees[2] == trees[0], "identical revision trees")
        for (job, id) in zip(peers.jobs, ids) {
            #expect(peers.checkpointViolations(job, id: id) == 0, "checkpoint \(id) at the end")
        }
        let starts = Self.startsAfterRestarts(peers)
        #expect(!starts.isEmpty)
        for line in starts { #expect(!line.hasSuffix(" from 0"), "a resync from 0: \(line)") }
    }

    /// Conflicts from the start: each peer gets its own first revision of s0...s3 (as a
    /// replicator would write it), so every shared id has three branches to carry.
    /// - Returns: the revisions written, by id.
    static func seedConflicts(_ peers: CrashLoopPeers) -> [String: [String]] {
        var written: [String: [String]] = [:]
        for (index, letter) in ["a", "b", "c"].enumerated() {
            let rev = "1-" + String(repeating: letter, count: 32)
            let docs: [JSONValue] = (0..<4).map { n in ["_id": .string("s\(n)"), "_rev": .string(rev), "side": .int(index)] }
            let body: JSONValue = ["new_edits": false, "docs": .array(docs)]
            #expect(peers.call(index, "POST", "/\(CrashLoopPeers.db)/_bulk_docs", JSONWriter.string(body))?.status == 201)
            for n in 0..<4 { written["s\(n)", default: []].append(rev) }
        }
        return written
    }

    /// Six SIGKILLs at seeded moments over 30 s; after each restart, every checkpoint into
    /// the restarted peer is checked against its source. - Returns: the checks made.
    static func killSixTimes(_ peers: CrashLoopPeers, ids: [String]) throws -> Int {
        var random = SplitMix(state: 44)
        let moments = (0..<6).map { _ in Double(random.next() % 30_000) / 1000 }.sorted()
        let begin = Date()
        var checks = 0
        for moment in moments {
            let wait = begin.addingTimeInterval(moment).timeIntervalSinceNow
            if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }  // the kill schedule, not a synchronisation
            let victim = Int(random.next() % 3)
            try peers.crash(victim)
            for (job, id) in zip(peers.jobs, ids) where job.target == victim {
                guard let violations = peers.checkpointViolations(job, id: id) else { continue }
                checks += 1
                #expect(violations == 0, "checkpoint \(id) into peer \(victim) passed \(violations) missing revisions")
            }
        }
        return checks
    }

    /// The `replicating SRC → TGT from SEQ` lines of every incarnation after a restart.
    static func startsAfterRestarts(_ peers: CrashLoopPeers) -> [Substring] {
        (0..<3).flatMap { index in
            peers.outputs(index).dropFirst().flatMap { output in
                output.split(separator: "\n").filter { $0.contains("[SetteeReplicator] replicating ") }
            }
        }
    }
}
