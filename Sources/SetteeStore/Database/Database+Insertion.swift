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
    /// - Parameter policy: asked about each update first (`WritePolicy`); a refused
    ///   one fails with `.rejected` and is not stored.
    public func update(_ updates: [DocumentUpdate], newEdits: Bool,
                       policy: (any WritePolicy)? = nil) async throws -> [Result<RevisionID, StoreError>] {
        let blobs = self.blobs
        let before = changesNotifier.sequence
        let (results, sequence) = try await writer.write { db in
            var job = try Inserter.Job(db, blobs: blobs)
            let reviewed = try Self.review(updates, newEdits: newEdits, policy: policy, db)
            let written = newEdits ? try Inserter.edit(db, reviewed.accepted, job: &job)
                                   : try Inserter.merge(db, reviewed.accepted, job: &job)
            try DocumentCounts.add(db, job.counts)
            return (reviewed.merge(written), job.lastSequence)
        }
        // After the commit: a woken feed must find the rows it is told about.
        changesNotifier.notify(sequence: sequence)
        if sequence > before { events?.record(.updated, databaseName: name) }
        return results
    }

    /// The updates `policy` lets through, and a way to put the refused ones' results
    /// back in their places.
    private static func review(_ updates: [DocumentUpdate], newEdits: Bool, policy: (any WritePolicy)?,
                               _ db: Connection) throws -> ReviewedUpdates {
        guard let policy else { return ReviewedUpdates(accepted: updates, refused: [:]) }
        var accepted: [DocumentUpdate] = []
        var refused: [Int: WriteRejection] = [:]
        for (index, update) in updates.enumerated() {
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
}

/// The outcome of a `WritePolicy` review: the updates to write, and the positions
/// of the refused ones.
struct ReviewedUpdates {
    let accepted: [DocumentUpdate]
    let refused: [Int: WriteRejection]

    /// One result per original update: the refusals in their places, the written
    /// results in order around them.
    func merge(_ written: [Result<RevisionID, StoreError>]) -> [Result<RevisionID, StoreError>] {
        guard !refused.isEmpty else { return written }
        var next = written.makeIterator()
        return (0..<(accepted.count + refused.count)).map { index in
            if let rejection = refused[index] { return .failure(.rejected(rejection)) }
            return next.next() ?? .failure(.conflict)
        }
    }
}

/// The per-document steps of `Database.update`, run on the writer queue.
enum Inserter {
    /// `new_edits=true`: a new child revision (spec/couchdb.md "Revisions").
    static func edit(_ db: Connection, _ update: DocumentUpdate,
                     job: inout Job) throws -> Result<RevisionID, StoreError> {
        if update.baseRevision == nil, let created = try create(db, update, job: &job) { return created }
        let stored = try DocumentRecords.documentAndTree(db, id: update.id)
        let record = stored?.record
        var tree = stored?.tree ?? RevisionTree()
        guard case .success(let parent) = parentNode(in: tree, base: update.baseRevision) else {
            return .failure(.conflict)
        }
        let attachments: [StoredAttachment]
        switch try AttachmentRecords.resolve(db, id: update.id, update.attachments, parent: parent?.sequence,
                                             generation: (parent?.rev.generation ?? 0) + 1, blobs: job.blobs) {
        case .success(let resolved): attachments = resolved
        case .failure(let error): return .failure(error)
        }
        let rev = RevisionHasher.child(of: parent?.rev, isDeleted: update.isDeleted, body: update.body,
                                       attachments: attachments)
        guard !tree.contains(rev) else { return .failure(.conflict) }
        let rowID = try record?.rowID ?? DocumentRecords.insertDocument(db, id: update.id)
        let sequence = job.nextSequence()
        try DocumentRecords.insertRevision(db, sequence: sequence, rowID: rowID, rev: rev, parent: parent?.sequence,
                                           isLeaf: true, isDeleted: update.isDeleted, body: update.body)
        try AttachmentRecords.insert(db, sequence: sequence, attachments)
        job.counts.externalBytes += update.body.count
        if let parent { job.counts.externalBytes -= try DocumentCounts.retireLeaf(db, sequence: parent.sequence) }
        tree.insert(.init(rev: rev, parent: parent?.rev, isDeleted: update.isDeleted,
                          sequence: sequence, hasBody: true))
        try finish(db, rowID: rowID, tree: &tree, sequence: sequence, revsLimit: job.revsLimit)
        job.counts.document(wasDeleted: record?.isDeleted, isDeleted: tree.winner?.isDeleted)
        return .success(rev)
    }

    /// The node a new edit descends from, nil for a new document, or a conflict.
    ///
    /// No base: allowed on a missing document, and on a deleted one, where the
    /// edit continues the deleted winner leaf (CouchDB recreates that way).
    /// A base must be a leaf; a base on a missing document is a conflict (CouchDB: 409).
    static func parentNode(in tree: RevisionTree, base: RevisionID?) -> Result<RevisionTree.Node?, StoreError> {
        guard let base else {
            guard let winner = tree.winner else { return .success(nil) }
            return winner.isDeleted ? .success(winner) : .failure(.conflict)
        }
        // A tombstone cannot be edited by naming it: CouchDB 3.4.3 answers 409 there
        // and creates a child of it only for a write with no `_rev` (spec/couchdb.md).
        guard let node = tree.node(base), tree.isLeaf(base), !node.isDeleted else { return .failure(.conflict) }
        return .success(node)
    }

    /// `new_edits=false`: merges `history` (newest first) into the tree.
    static func merge(_ db: Connection, _ update: DocumentUpdate,
                      job: inout Job) throws -> Result<RevisionID, StoreError> {
        let history = update.history
        guard let newest = history.first else { return .failure(.invalidRevision("missing _rev")) }
        for (index, rev) in history.enumerated() where rev.generation != newest.generation - index {
            return .failure(.invalidRevision("_revisions do not match _rev: \(rev)"))
        }
        let stored = try DocumentRecords.documentAndTree(db, id: update.id)
        let record = stored?.record
        var tree = stored?.tree ?? RevisionTree()
        guard !tree.contains(newest) else { return .success(newest) }
        let ancestors = history.dropFirst().compactMap { tree.node($0)?.sequence }
        let attachments: [StoredAttachment]
        switch try AttachmentRecords.resolve(db, id: update.id, update.attachments, ancestors: ancestors,
                                             rowID: record?.rowID,
                                             generation: newest.generation, blobs: job.blobs) {
        case .success(let resolved): attachments = resolved
        case .failure(let error): return .failure(error)
        }
        let rowID = try record?.rowID ?? DocumentRecords.insertDocument(db, id: update.id)
        let added = tree.merge(path: history, isDeleted: update.isDeleted, hasBody: true)
        var sequence: Int64 = 0
        var parentSequence = added.first?.parent.flatMap { tree.node($0)?.sequence }
        if let parentSequence {
            job.counts.externalBytes -= try DocumentCounts.retireLeaf(db, sequence: parentSequence)
        }
        for node in added {
            let isLeaf = node.rev == newest
            sequence = job.nextSequence()
            try DocumentRecords.insertRevision(db, sequence: sequence, rowID: rowID, rev: node.rev,
                                               parent: parentSequence, isLeaf: isLeaf, isDeleted: node.isDeleted,
                                               body: isLeaf ? update.body : nil)
            if isLeaf {
                try AttachmentRecords.insert(db, sequence: sequence, attachments)
                job.counts.externalBytes += update.body.count
            }
            tree.insert(.init(rev: node.rev, parent: node.parent, isDeleted: node.isDeleted,
                              sequence: sequence, hasBody: isLeaf))
            parentSequence = sequence
        }
        try finish(db, rowID: rowID, tree: &tree, sequence: sequence, revsLimit: job.revsLimit)
        job.counts.document(wasDeleted: record?.isDeleted, isDeleted: tree.winner?.isDeleted)
        return .success(newest)
    }

    /// Stems the tree, drops the stemmed rows, and caches the winner and seq in `docs`.
    static func finish(_ db: Connection, rowID: Int64, tree: inout RevisionTree,
                       sequence: Int64, revsLimit: Int) throws {
        // Children of dropped rows are new roots too (their parent link is cut), so
        // no row ever points at a deleted sequence.
        let stemming = tree.stemming(to: revsLimit)
        let dropped = stemming.dropped.compactMap { tree.node($0)?.sequence }
        let newRoots = stemming.newRoots.compactMap { tree.node($0)?.sequence }
        tree.stem(to: revsLimit)
        for root in newRoots {
            try db.run("UPDATE revs SET parent = NULL WHERE sequence = ?", [.integer(root)])
        }
        for row in dropped {
            try db.run("UPDATE revs SET parent = NULL WHERE doc_id = ? AND parent = ?", [.integer(rowID), .integer(row)])
            try db.run("DELETE FROM revs WHERE sequence = ?", [.integer(row)])
            try AttachmentRecords.delete(db, sequence: row)
        }
        guard let winner = tree.winner else { return }
        try db.run("UPDATE docs SET seq = ?, winner = ?, winner_seq = ?, deleted = ? WHERE doc_id = ?",
                   [.integer(sequence), .text(winner.rev.description), .integer(winner.sequence),
                    .integer(winner.isDeleted ? 1 : 0), .integer(rowID)])
    }
}
