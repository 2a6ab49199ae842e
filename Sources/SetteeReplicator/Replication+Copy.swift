internal import Logging
internal import Synchronization

/// Fetching missing revisions from the source and writing them to the target
/// (CouchDB Replication Protocol, "Fetch Changed Documents", "Upload Batch of Changed
/// Documents"), shared with other replications into the same database.
extension Replication {
    /// Copies `requests`, sharing them with other replications into the same database of this
    /// process (`RevisionsInFlight`); ends once every one is in the target, by whichever copy.
    func copy(_ requests: [RevisionRequest]) async throws {
        guard let key = target.inFlightKey else { return try await copyClaimed(requests) }
        let inFlight = RevisionsInFlight.shared
        var pending = requests
        while !pending.isEmpty {
            let claim = RevisionsInFlight.Claim()
            let (mine, theirs) = inFlight.claim(pending, into: key, for: claim)
            do {
                if !mine.isEmpty { try await copyClaimed(mine) }
            } catch {
                inFlight.release(mine, in: key, by: claim)
                throw error
            }
            inFlight.release(mine, in: key, by: claim)
            guard !theirs.isEmpty else { return }
            var waited = Set<ObjectIdentifier>()
            for (_, other) in theirs where waited.insert(ObjectIdentifier(other)).inserted { await other.wait() }
            // Written by the other copies, unless one failed: what is still missing is copied here.
            var wanted: [String: [String]] = [:]
            for (request, _) in theirs { wanted[request.id, default: []].append(request.rev) }
            let missing = try await target.missingRevisions(wanted)
            pending = theirs.map(\.0).filter { missing[$0.id]?.missing.contains($0.rev) == true }
        }
    }

    func copyClaimed(_ requests: [RevisionRequest]) async throws {
        let revisions = try await source.revisions(requests)
        let refused = try await target.write(revisions)
        // A stub the target cannot resolve (its ancestor was compacted or purged):
        // send those documents again with every attachment, as CouchDB's replicator does.
        let stubbed = Set(refused.filter { $0.error == "missing_stub" }.map(\.id))
        var failures = refused.filter { $0.error != "missing_stub" }
        var read = revisions.count
        var written = revisions.count - refused.count
        var (attempts, fetched) = (requests.count, revisions.count)
        if !stubbed.isEmpty {
            let full = try await source.revisions(requests.filter { stubbed.contains($0.id) }.map {
                RevisionRequest(id: $0.id, rev: $0.rev, attsSince: [])
            })
            let refusedAgain = try await target.write(full)
            read += full.count
            written += full.count - refusedAgain.count
            attempts += stubbed.count
            fetched += full.count
            failures += refusedAgain
        }
        for failure in failures {
            logger.warning("\(target.displayName) refused \(failure.id) \(failure.rev ?? ""): \(failure.error) \(failure.reason)")
        }
        state.withLock { [read, written, failures, attempts, fetched] in
            $0.stats.bulkGetAttempts += attempts
            $0.stats.bulkGetDocs += fetched
            $0.stats.docsRead += read
            $0.stats.docsWritten += written
            $0.stats.docWriteFailures += failures.count
        }
    }
}
