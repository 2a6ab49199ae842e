internal import FoundationEssentials
import SetteeJSON
import SetteeReplicator
import SetteeStore

/*
 `topology = pull`: this server runs only the pull of each pair; the way out is the peer's
 pull of this server, a job on the peer. What this server can see of that job is what it
 leaves here: its checkpoint, `_local/<replication id>` in this database, which a continuous
 pull writes (on its target, then its source: this server) every 5 s while changes flow and
 once more when it catches up (Checkpointer, ReplicationOptions.checkpointInterval). Its id
 is the one the peer computes (`ReplicationID`: this server's uuid and database as the
 source, the peer's as the target, with discovery's options, which change nothing in it), so
 it is read by id, without asking the peer. The row in `/_peers` says:
 - `state`: `peer pulls` once a checkpoint of it is here, `peer not seen pulling` before;
 - `checkpointed_seq`, `checkpointed_at`: the peer's last checkpoint here;
 - `behind`: this database's update sequence minus the checkpointed one (changes the peer has
   not yet confirmed it holds; up to 5 s of changes while they flow), `caught_up` when 0.
 */
extension NodeDiscovery {
    /// What one database holds of its peers' pulls: every `_local` document's body by id (one
    /// scan: a room's are a few dozen small checkpoints) and its update sequence, read once for
    /// all the peers in `/_peers` (a busy device's readers serve the pulls of the whole room).
    struct LocalCheckpoints: Sendable {
        var byID: [String: JSONObject] = [:]
        var updateSeq: Int64?
    }

    /// The checkpoints of `databases`, by database.
    func localCheckpoints(_ databases: Set<String>) async -> [String: LocalCheckpoints] {
        var found: [String: LocalCheckpoints] = [:]
        for db in databases {
            guard let database = try? await directory.open(db) else { continue }
            var query = AllDocsQuery()
            query.includeBodies = true
            var checkpoints = LocalCheckpoints(updateSeq: try? await database.updateSequence())
            for document in (try? await database.localDocuments(query)) ?? [] {
                checkpoints.byID[document.id] = (try? JSONReader.parse(document.body))?.objectValue
            }
            found[db] = checkpoints
        }
        return found
    }

    /// The peer's pull of `db` from this server, as its checkpoint here shows it.
    func peerPullJSON(peerUUID: String, db: String, _ local: LocalCheckpoints?) -> JSONValue {
        let id = ReplicationID.make(source: PeerIdentity(serverUUID: uuid, database: db),
                                    target: PeerIdentity(serverUUID: peerUUID, database: db), options: ReplicationOptions())
        var row: JSONObject = ["id": .null, "database": .string(db), "direction": "push", "run_by": "peer"]
        let updateSeq = local?.updateSeq
        guard let checkpoint = local?.byID[id], let seq = checkpoint["source_last_seq"] else {
            row.append("state", "peer not seen pulling")
            row.append("caught_up", .bool(updateSeq == 0))
            for key in ["lag_ms", "behind", "checkpointed_seq", "checkpointed_at", "last_error"] { row.append(key, .null) }
            return .object(row)
        }
        let behind = Self.sequenceNumber(seq).flatMap { done in updateSeq.map { max(0, $0 - done) } }
        row.append("state", "peer pulls")
        row.append("caught_up", behind.map { .bool($0 == 0) } ?? .null)
        row.append("lag_ms", .null)
        row.append("behind", behind.map { .int(Int($0)) } ?? .null)
        row.append("checkpointed_seq", seq)
        row.append("checkpointed_at", checkpoint["history"]?.arrayValue?.first?["end_time"] ?? .null)
        row.append("last_error", .null)
        return .object(row)
    }

    /// The update sequence a checkpointed `_changes` seq stands for: this server's seqs are
    /// CouchDB-shaped strings, `N-opaque` with N the database's update sequence; a bare number
    /// (as a number or its text) is taken as it is.
    static func sequenceNumber(_ seq: JSONValue) -> Int64? {
        if let number = seq.intValue { return Int64(number) }
        guard let text = seq.stringValue else { return nil }
        return Int64(text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
