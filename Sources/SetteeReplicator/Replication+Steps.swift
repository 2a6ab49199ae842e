internal import SetteeJSON
internal import Synchronization

/// The steps around the copy: checking the peers, reading a page of changes, and asking
/// the target what it lacks (CouchDB Replication Protocol, "Verify Peers", "Listen to
/// Changes Feed", "Calculate Revision Difference").
extension Replication {
    /// One page of the source's changes after `since` (a longpoll when `wait` is given).
    func nextPage(after since: JSONValue, wait: Duration?) async throws -> ChangesPage {
        try await retrying {
            try await self.source.changes(since: since, limit: self.options.batchSize, filter: self.options.filter,
                                          wait: wait)
        }
    }

    /// Both databases must exist; the target is created when asked.
    func preparePeers() async throws {
        guard try await retrying({ try await self.source.exists() }) else {
            throw ReplicationError.databaseNotFound(source.displayName)
        }
        if try await retrying({ try await self.target.exists() }) { return }
        guard options.createTarget else { throw ReplicationError.databaseNotFound(target.displayName) }
        try await retrying { try await self.target.create(parameters: self.options.createTargetParameters) }
    }

    /// What of one page the target lacks (`_revs_diff`), in chunks to fetch and write.
    func missingChunks(_ rows: [ChangeRow]) async throws -> [[RevisionRequest]] {
        var wanted: [String: [String]] = [:]
        for row in rows { wanted[row.id, default: []].append(contentsOf: row.revisions) }
        let missing = try await target.missingRevisions(wanted)
        let requests = missing.sorted { $0.key < $1.key }.flatMap { id, diff in
            diff.missing.map { RevisionRequest(id: id, rev: $0, attsSince: diff.possibleAncestors) }
        }
        state.withLock {
            $0.stats.missingChecked += wanted.values.reduce(0) { $0 + $1.count }
            $0.stats.missingFound += requests.count
        }
        return stride(from: 0, to: requests.count, by: Self.chunkSize).map {
            Array(requests[$0..<min($0 + Self.chunkSize, requests.count)])
        }
    }

    /// Revisions per `_bulk_get` and `_bulk_docs`; `options.workers` of them are in flight at
    /// once, across pages. 250 rather than 100: each request has its fixed cost on both
    /// sides (an HTTP exchange, a task, a commit), and 20,000 small documents cost the
    /// server 0.47 s of CPU in chunks of 250 against 0.63 s in chunks of 100; 500 measured
    /// no better (bench/RESULTS.md, "Replication at 15× CouchDB"). CouchDB's own
    /// `worker_batch_size` is 500.
    static let chunkSize = 250
}
