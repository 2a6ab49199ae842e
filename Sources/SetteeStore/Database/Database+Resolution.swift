/*
 The write of one resolved conflict (issue 42, item 3): one new revision on the
 winning branch and a tombstone on every losing live leaf, in one transaction.

 A resolution names the live leaves its policy read (winner first, then CouchDB's
 `_conflicts` order). Inside the transaction the document's live leaves are read
 again; when they are not exactly those (a write landed since the policy read them),
 nothing is written for that document and it is answered `.stale`: its next
 resolution reads the new leaves. So a resolution never tombstones a leaf its policy
 did not see, and never writes over one it did not merge.

 The new revision is a child of the winner, with the merged body and the winner's
 attachments (kept as stubs); each tombstone is a deleted child of its losing leaf
 whose body and attachments are that leaf's, so the leaf's data stays recorded in a
 revision even after compaction drops non-leaf bodies and the blobs no leaf names. Revision ids are CouchDB's
 (`RevisionHasher`): peers that resolve the same leaves the same way write the same
 revisions, and replicating them to each other adds nothing.
*/
extension Database {
    /// One document's resolved conflict, as `resolveConflicts` writes it.
    public struct ConflictResolution: Sendable {
        public let id: String
        /// The live leaves the policy read: the winner first, then the losing ones.
        public let leaves: [RevisionID]
        /// The body of the new child of the winner; nil when it would be the winner's own.
        public let mergedBody: [UInt8]?
        /// Per losing leaf (`leaves[1...]`, in order), its tombstone's body.
        public let tombstoneBodies: [[UInt8]]

        public init(id: String, leaves: [RevisionID], mergedBody: [UInt8]?, tombstoneBodies: [[UInt8]]) {
            precondition(leaves.count == tombstoneBodies.count + 1, "one tombstone body per losing leaf")
            self.id = id
            self.leaves = leaves
            self.mergedBody = mergedBody
            self.tombstoneBodies = tombstoneBodies
        }
    }

    /// What became of one `ConflictResolution`.
    public enum ResolutionOutcome: Sendable, Equatable {
        /// Written: the document's winning revision now.
        case resolved(winner: RevisionID)
        /// The document's live leaves are no longer those the policy read: nothing written.
        case stale
    }

    /// Writes `resolutions`, all in one transaction (one per batch of documents).
    /// - Returns: per resolution, in order, what became of it.
    /// - Throws: for failures of the whole batch (I/O, SQLite, a revision the store
    ///   refuses); nothing is then written.
    public func resolveConflicts(_ resolutions: [ConflictResolution]) async throws -> [ResolutionOutcome] {
        guard !resolutions.isEmpty else { return [] }
        let before = changesNotifier.sequence
        let blobs = self.blobs
        let (outcomes, sequence) = try await writer.write { db in
            var job = try Inserter.Job(db, blobs: blobs)
            var outcomes: [ResolutionOutcome] = []
            for resolution in resolutions {
                outcomes.append(try Self.write(resolution, db, job: &job))
            }
            try DocumentCounts.add(db, job.counts)
            return (outcomes, job.lastSequence)
        }
        changesNotifier.notify(sequence: sequence)
        if sequence > before { events?.record(.updated, databaseName: name) }
        return outcomes
    }

    private static func write(_ resolution: ConflictResolution, _ db: Connection,
                              job: inout Inserter.Job) throws -> ResolutionOutcome {
        guard let (record, tree) = try DocumentRecords.documentAndTree(db, id: resolution.id),
              let winner = tree.winner, !winner.isDeleted,
              [winner.rev] + tree.conflicts == resolution.leaves else { return .stale }
        var updates: [DocumentUpdate] = []
        if let merged = resolution.mergedBody {
            let kept = try DocumentRecords.revisions(db, rowID: record.rowID, tree: tree, revs: [winner.rev])
            let stubs = (kept.first?.attachments ?? []).map { AttachmentUpdate.stub(name: $0.name, digest: $0.digest) }
            updates.append(DocumentUpdate(id: resolution.id, body: merged, baseRevision: winner.rev, attachments: stubs))
        }
        // Each tombstone keeps its leaf's attachments too (as stubs): compaction then keeps
        // their bytes, as it keeps the body, and nothing of the leaf is lost.
        let losers = try DocumentRecords.revisions(db, rowID: record.rowID, tree: tree, revs: Array(resolution.leaves.dropFirst()))
        for (loser, body) in zip(resolution.leaves.dropFirst(), resolution.tombstoneBodies) {
            let attachments = losers.first { $0.rev == loser }?.attachments ?? []
            let stubs = attachments.map { AttachmentUpdate.stub(name: $0.name, digest: $0.digest) }
            updates.append(DocumentUpdate(id: resolution.id, body: body, isDeleted: true, baseRevision: loser,
                                          attachments: stubs))
        }
        var newWinner = winner.rev
        for (index, update) in updates.enumerated() {
            switch try Inserter.edit(db, update, job: &job) {
            case .success(let rev): if index == 0 && resolution.mergedBody != nil { newWinner = rev }
            // Checked above to be leaves of this tree: a refusal here is the store's own fault.
            case .failure(let error): throw error
            }
        }
        return .resolved(winner: newWinner)
    }
}

/// Conflict resolution in `_active_tasks` (a `StoreTasks` task of kind `.conflictResolution`):
/// the server's resolver runs outside the store and reports through these.
extension Database {
    /// Registers a resolution of `total` documents; a failed one of this database is dropped.
    public func beginResolutionTask(total: Int) -> Int {
        tasks.begin(.conflictResolution, database: name, totalChanges: total)
    }

    public func resolutionTaskProgress(_ task: Int, done: Int, total: Int) {
        tasks.progress(task, changesDone: done, totalChanges: total)
    }

    /// Ends the task; with `error` it stays listed with it (documents left in conflict).
    public func endResolutionTask(_ task: Int, error: String?) {
        if let error { tasks.fail(task, error: error) } else { tasks.end(task) }
    }
}
