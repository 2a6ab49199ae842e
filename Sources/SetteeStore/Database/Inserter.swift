/// The per-document steps of `Database.update`, run on the writer queue.
enum Inserter {
    /// `new_edits=true`: a new child revision (spec/couchdb.md "Revisions").
    static func edit(_ db: Connection, _ update: DocumentUpdate,
                     job: inout Job) throws -> Result<RevisionID, StoreError> {
        if update.baseRevision == nil, let created = try create(db, update, job: &job) { return created }
        let stored = try DocumentRecords.documentAndTree(db, id: update.id)
        let record = stored?.record
        var tree = stored?.tree ?? RevisionTree()
        guard case .success(let parent) = parentNode(in: tree, base: update.baseRevision, isDeletion: update.isDeleted) else {
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
    /// edit continues the deleted winner leaf (CouchDB recreates that way) — unless the
    /// edit is itself a deletion: deleting a deleted document without its rev is 409 in
    /// CouchDB 3.4.3 (checked on it, PUT and `_bulk_docs`).
    /// A base must be a leaf; a base on a missing document is a conflict (CouchDB: 409).
    static func parentNode(in tree: RevisionTree, base: RevisionID?,
                           isDeletion: Bool = false) -> Result<RevisionTree.Node?, StoreError> {
        guard let base else {
            guard let winner = tree.winner else { return .success(nil) }
            return winner.isDeleted && !isDeletion ? .success(winner) : .failure(.conflict)
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
        try ConflictRecords.note(db, rowID: rowID, tree: tree)
        guard let winner = tree.winner else { return }
        try db.run("UPDATE docs SET seq = ?, winner = ?, winner_seq = ?, deleted = ? WHERE doc_id = ?",
                   [.integer(sequence), .text(winner.rev.description), .integer(winner.sequence),
                    .integer(winner.isDeleted ? 1 : 0), .integer(rowID)])
    }
}
