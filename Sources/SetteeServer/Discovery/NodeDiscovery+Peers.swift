internal import FoundationEssentials
import Logging
import Synchronization
import SetteeDiscovery
import SetteeJSON
import SetteeReplicator

/*
 `GET /_peers`: the room as this server sees it. One row per peer (by DNS-SD instance):
 name, addresses, when it was last seen (its last DNS-SD report, or its last answer to
 a probe), what it advertises, a `state`, and its replications both ways, each with its own
 state, lag and last error: this server's jobs (`run_by` "this server"), and with `topology =
 pull` the peer's pull of this server (`run_by` "peer", NodeDiscovery+PeerPulls). States:
 - `syncing`: every replication with it runs without error;
 - `failing`: a replication with it fails (its `last_error` says why) while it answers;
 - `unanswered`: it is advertised but does not answer (its replications stop after
   `awayAfter`: then `away`);
 - `seen`: nothing is synced with it (no `sync` database in common, or an untrusted TLS service);
 - `gone`: it left (DNS-SD's goodbye or expiry, or every address refuses the connection while
   its record lingers): listed with when it was last seen, not as failing.
 */
extension NodeDiscovery {
    func peersJSON(checkReachability: Bool) async -> JSONValue {
        let snapshot = state.withLock { $0 }
        let jobs = Dictionary(replications.jobs.compactMap { job in job.status.id.map { ($0, job) } }) { a, _ in a }
        var rows: [JSONValue] = []
        // `topology = pull`: the way out is each peer's pull of us, seen by its checkpoint here.
        let local = configuration.topology == .pull
            ? await localCheckpoints(Set(snapshot.syncing.values.filter { !$0.jobs.isEmpty }.flatMap(\.databases))) : [:]
        for entry in snapshot.seen.values.sorted(by: { $0.peer.instance < $1.peer.instance }) {
            let peerUUID = entry.peer.profile?.uuid ?? ""
            var row = Self.describe(entry.peer, lastSeen: entry.lastSeen)
            row.append("seen_since", .string(entry.since.formatted(.iso8601)))
            let ids = snapshot.syncing[peerUUID]?.jobs ?? []
            var replications = ids.map { Self.replicationJSON($0, jobs[$0]) }
            if configuration.topology == .pull, !ids.isEmpty {
                for db in snapshot.syncing[peerUUID]?.databases ?? [] {
                    replications.append(peerPullJSON(peerUUID: peerUUID, db: db, local[db]))
                }
            }
            row.append("state", .string(Self.state(peerUUID, ids: ids, jobs: jobs, snapshot)))
            if let since = snapshot.unanswered[peerUUID] { row.append("unanswered_since", .string(since.formatted(.iso8601))) }
            if snapshot.closed.contains(peerUUID) { row.append("reason", "refuses connections on every address") }
            if checkReachability { row.append("reachable", .bool(await answers(entry.peer.baseURL))) }
            row.append("replications", .array(replications))
            rows.append(.object(row))
        }
        let present = Set(snapshot.seen.values.compactMap { $0.peer.profile?.uuid })
        for (peerUUID, departed) in snapshot.departed.sorted(by: { $0.value.lastSeen > $1.value.lastSeen })
        where !present.contains(peerUUID) {
            var row = Self.describe(departed.peer, lastSeen: departed.lastSeen)
            row.append("state", "gone")
            row.append("reason", .string(departed.why))
            row.append("replications", [])
            rows.append(.object(row))
        }
        return ["peers": .array(rows)]
    }

    private static func state(_ peerUUID: String, ids: [String], jobs: [String: ReplicationJob], _ s: State) -> String {
        if s.closed.contains(peerUUID) { return "gone" }
        if s.away.contains(peerUUID) { return "away" }
        if s.unanswered[peerUUID] != nil { return "unanswered" }
        guard !ids.isEmpty else { return "seen" }
        let failing = ids.contains { id in
            guard let job = jobs[id] else { return true }
            return job.replication.progress.lastError != nil || job.status.state != .running
        }
        return failing ? "failing" : "syncing"
    }

    private static func describe(_ peer: DiscoveredPeer, lastSeen: Date) -> JSONObject {
        let profile = peer.profile
        return [
            "instance": .string(peer.instance), "host": .string(peer.host), "port": .int(peer.port),
            "addresses": .array(peer.addresses.map { .string($0) }), "url": .string(peer.baseURL),
            "uuid": profile?.uuid.map { .string($0) } ?? .null,
            "databases": .array((profile?.databases ?? []).map { .string($0) }),
            "tls_fingerprint": profile?.tlsFingerprint.map { .string($0) } ?? .null,
            "last_seen": .string(lastSeen.formatted(.iso8601)),
        ]
    }

    /// One replication with a peer: `discovery+UUID+DB+DIRECTION`.
    private static func replicationJSON(_ id: String, _ job: ReplicationJob?) -> JSONValue {
        let parts = id.split(separator: "+").map(String.init)
        var row: JSONObject = ["id": .string(id), "database": parts.count == 4 ? .string(parts[2]) : .null,
                               "direction": parts.count == 4 ? .string(parts[3]) : .null, "run_by": "this server"]
        guard let job else {
            row.append("state", .null)
            return .object(row)
        }
        let progress = job.replication.progress
        row.append("state", .string(job.status.state.rawValue))
        row.append("caught_up", .bool(progress.caughtUp))
        // How far behind the source the target ran when the last page landed (ms).
        row.append("lag_ms", progress.lastPageLag.map { .int(Int($0.components.seconds * 1000
            + $0.components.attoseconds / 1_000_000_000_000_000)) } ?? .null)
        row.append("docs_written", .int(progress.stats.docsWritten))
        row.append("checkpointed_seq", progress.checkpointedSeq ?? .null)
        row.append("last_error", progress.lastError.map { .string($0) } ?? job.status.reason.map { .string($0) } ?? .null)
        return .object(row)
    }
}
