/// Document writes: `PUT`, `_bulk_docs`, and replicated revisions (`new_edits=false`).
///
/// A batch is one write job: it runs in one transaction (shared with other
/// batches by group commit) and inside its own savepoint, so a throw rolls the
/// whole batch back. Per-document problems (conflicts, bad histories) are not
/// throws but `Result` failures, and leave the other documents alone: nothing
/// is written for a document before its checks pass.
///
/// Each stored revision row gets the next sequence, counted by `Inserter.Job`.
/// After a document's rows are written its tree is stemmed to `_revs_limit` and
/// the `docs` row caches the winner and the document's latest sequence (its
/// `_changes` seq). A new document skips all of that: `Inserter.create` writes
/// its two rows in their final state, and runs of new ids (replicated ones too,
/// `Inserter+Replication`) go in multi-row INSERTs.
extension Database {
    /// Applies `updates` in order in one transaction.
    ///
    /// `newEdits == true`: each update makes a child of `baseRevision` (a new
    /// document when nil) with a deterministic rev id; `.conflict` when the base
    /// is not a leaf or a live document exists and no base was given.
    /// `newEdits == false`: `history` is merged into the tree as is; revisions
    /// already present are success and get no new seq.
    /// - Returns: one result per update, in order: the stored revision or the error for that document.
    /// - Throws: only for failures of the whole batch (I/O, SQLite); nothing is then stored.
    /// - Parameter policy: asked about each update first (`WritePolicy`; by default
    ///   the database's own rule); a refused one fails with `.rejected` and is not stored.
    public func update(_ updates: [DocumentUpdate], newEdits: Bool,
                       policy: (any WritePolicy)? = nil) async throws -> [Result<RevisionID, StoreError>] {
        let blobs = self.blobs
        // Once this write committed or failed, its uploads' blobs are named or garbage.
        defer { Self.releasePins(of: updates) }
        let before = changesNotifier.sequence
        let policy = policy ?? writePolicy
        var prepared = updates
        var refusedEarly: [Int: WriteRejection] = [:]
        // Design documents are written by database admins only (CouchDB's couch_db check).
        // A write that declares no writer is anonymous's (`WriteContext.current`).
        let declared = WriteContext.current
        if !declared.isDatabaseAdmin {
            let reason = "You are not a db or server admin."
            for (index, update) in updates.enumerated() where update.id.hasPrefix("_design/") {
                refusedEarly[index] = declared.name == nil ? .unauthorized(reason) : .forbidden(reason)
            }
        }
        if let designDocumentPolicy {
            for (index, update) in updates.enumerated() where refusedEarly[index] == nil && update.id.hasPrefix("_design/") {
                do { prepared[index] = try designDocumentPolicy.prepare(update, newEdits: newEdits) } catch {
                    refusedEarly[index] = error
                }
            }
        }
        // The database's own rule first, as CouchDB's before_doc_update runs before any
        // validate_doc_update (couch_db:update_docs): `_users` refuses a user writing
        // another's document before a validation function is shown the stored one.
        if let policy {
            for index in updates.indices where refusedEarly[index] == nil {
                do { prepared[index] = try policy.prepare(prepared[index], newEdits: newEdits) } catch {
                    refusedEarly[index] = error
                }
            }
        }
        if let updateValidator {
            let pending = updates.indices.filter { refusedEarly[$0] == nil }
            let refusals = await updateValidator.validate(pending.map { prepared[$0] }, newEdits: newEdits, in: self)
            for (offset, rejection) in refusals where offset < pending.count { refusedEarly[pending[offset]] = rejection }
        }
        try await storeStagedBlobs(of: prepared, except: refusedEarly)
        // The writer runs batches outside this task (group commit), where the task-local
        // is unset: the writer's identity travels with the batch and is set again for the policy.
        let identity = WriteContext.writer
        // The ids given and those the policies prepared: a policy does not rename, but a
        // kept winner left current by a mistake there would be served until evicted.
        let changed = ChangedDocuments.ids(updates.map(\.id) + prepared.map(\.id))
        let (results, sequence) = try await writer.write(changing: changed) { [prepared, refusedEarly] db in
            var job = try Inserter.Job(db, blobs: blobs)
            let reviewed = try WriteContext.$writer.withValue(identity) {
                try Self.review(prepared, newEdits: newEdits, policy: policy, refused: refusedEarly, db)
            }
            let written = newEdits ? try Inserter.edit(db, reviewed.accepted, job: &job)
                                   : try Inserter.merge(db, reviewed.accepted, job: &job)
            try DocumentCounts.add(db, job.counts)
            return (reviewed.merge(written), job.lastSequence)
        }
        if let updateValidator, updates.contains(where: { $0.id.hasPrefix("_design/") }) {
            updateValidator.designDocumentsChanged(in: self)
        }
        // After the commit: a woken feed must find the rows it is told about.
        changesNotifier.notify(sequence: sequence)
        if sequence > before { events?.record(.updated, databaseName: name) }
        if let conflictWatcher, !newEdits || updates.contains(where: { $0.id.hasPrefix("_design/") }) {
            let written = zip(updates, results).compactMap { update, result in
                (try? result.get()).map { _ in update.id }
            }
            if !written.isEmpty { conflictWatcher.written(ids: written, newEdits: newEdits, in: self) }
        }
        return results
    }

    /// The updates `policy` lets through, and a way to put the refused ones' results
    /// back in their places.
    private static func review(_ updates: [DocumentUpdate], newEdits: Bool, policy: (any WritePolicy)?,
                               refused refusedEarly: [Int: WriteRejection], _ db: Connection) throws -> ReviewedUpdates {
        guard let policy else {
            let accepted = updates.indices.filter { refusedEarly[$0] == nil }.map { updates[$0] }
            return ReviewedUpdates(accepted: accepted, refused: refusedEarly)
        }
        var accepted: [DocumentUpdate] = []
        var refused = refusedEarly
        for (index, update) in updates.enumerated() where refusedEarly[index] == nil {
            do {
                try policy.review(update, newEdits: newEdits) { try Self.currentWinner(db, id: update.id) }
                accepted.append(update)
            } catch {
                refused[index] = error
            }
        }
        return ReviewedUpdates(accepted: accepted, refused: refused)
    }
}

extension Database {
    /// A document's winning revision as stored now, nil for an id never written.
    static func currentWinner(_ db: Connection, id: String) throws -> StoredRevision? {
        switch try DocumentRecords.winner(db, id: id) {
        case .neverWritten: return nil
        case .found(let revision): return revision
        case .unlinked:
            guard let stored = try DocumentRecords.documentAndTree(db, id: id), let node = stored.tree.winner else {
                return nil
            }
            return StoredRevision(rev: node.rev, isDeleted: node.isDeleted, sequence: node.sequence,
                                  body: try DocumentRecords.winnerBodyFromTree(db, rowID: stored.record.rowID),
                                  attachments: [])
        }
    }

    /// Ends the uploads' holds on the blobs `updates` name (`BlobPins`).
    private static func releasePins(of updates: [DocumentUpdate]) {
        for update in updates {
            for case .new(let attachment) in update.attachments { attachment.pin?.release() }
        }
    }

    /// Stores the small attachments uploaded for `updates` (`StoredAttachment.staged`), all
    /// in one transaction, before the revisions naming them are written.
    private func storeStagedBlobs(of updates: [DocumentUpdate], except refused: [Int: WriteRejection]) async throws {
        var staged: [(key: BlobKey, bytes: [UInt8])] = []
        for (index, update) in updates.enumerated() where refused[index] == nil {
            for case .new(let attachment) in update.attachments {
                if let bytes = attachment.staged?.bytes { staged.append((attachment.digest, bytes)) }
            }
        }
        guard !staged.isEmpty else { return }
        try await blobs.storeSmall(staged)
    }
}
