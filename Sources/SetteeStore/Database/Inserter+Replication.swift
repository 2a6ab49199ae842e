/// The fast path of `new_edits=false` for ids that have never been written: what
/// most of a first replication into this database is (CouchDB's replicator writes
/// to its target with `_bulk_docs` and `new_edits=false`; bench
/// `bulk_docs_replicated`).
///
/// For a new id, `merge` reads the document (a miss), inserts an empty `docs` row,
/// inserts each revision of the history, then updates the `docs` row. Here runs
/// of such documents are written as `Inserter+Creation` writes new ones: the
/// `docs` rows in their final state by one multi-row INSERT, whose `ON CONFLICT DO
/// NOTHING` tells whether some id exists or repeats (then the rows that went in are
/// deleted and the run goes one by one through `merge`, in order, exactly as if
/// there were no run), and the revisions by multi-row INSERTs.
///
/// Only what the general path would write the same way without looking at the
/// store goes in a run: a history that is well formed and within `_revs_limit` (so
/// nothing is stemmed), and attachments that are all new (a stub needs a stored
/// ancestor, which a new document does not have). Anything else ends the current
/// run first, so updates still apply in the order given.
extension Inserter {
    /// Longest history a run takes; a longer one goes through `merge` alone.
    static let runHistoryLimit = 64

    /// `new_edits=false` for a whole job: `merge` for each update, with runs of new ids batched.
    static func merge(_ db: Connection, _ updates: [DocumentUpdate],
                      job: inout Job) throws -> [Result<RevisionID, StoreError>] {
        try inRuns(updates, job: &job,
                   candidate: { update, job in
                       try ReplicatedDocument(update, revsLimit: job.revsLimit, blobs: job.blobs)
                   },
                   writeRun: { run, job, results in try insert(db, run, job: &job, results: &results) },
                   single: { update, job in try merge(db, update, job: &job) })
    }

    /// Writes `run` with one INSERT into `docs` and few into `revs`, or one by one
    /// when an id exists; appends a result per document.
    private static func insert(_ db: Connection, _ run: [ReplicatedDocument], job: inout Job,
                               results: inout [Result<RevisionID, StoreError>]) throws {
        // Row ids past the largest are free; SQLite picks the same way when left to choose.
        let lastRowID = try DocumentRecords.lastRowID(db)
        var next = job
        var documents: [DocumentRecords.NewDocumentRow] = []
        var revisions: [DocumentRecords.RevisionRow] = []
        documents.reserveCapacity(run.count)
        for (index, document) in run.enumerated() {
            let rowID = lastRowID + 1 + Int64(index)
            let update = document.update
            var parent: Int64?
            // Oldest first, each the parent of the next; only the newest has a body.
            for (depth, rev) in update.history.enumerated().reversed() {
                let isLeaf = depth == 0
                let sequence = next.nextSequence()
                revisions.append(DocumentRecords.RevisionRow(
                    sequence: sequence, rowID: rowID, rev: rev, parent: parent, isLeaf: isLeaf,
                    isDeleted: isLeaf && update.isDeleted, body: isLeaf ? update.body : nil))
                parent = sequence
            }
            documents.append(DocumentRecords.NewDocumentRow(rowID: rowID, id: update.id, sequence: next.lastSequence,
                                                            winner: document.newest, isDeleted: update.isDeleted))
        }
        guard try DocumentRecords.insertNewDocuments(db, documents) else {
            try DocumentRecords.deleteDocuments(db, rowIDs: lastRowID + 1...lastRowID + Int64(run.count))
            for document in run { results.append(try merge(db, document.update, job: &job)) }
            return
        }
        job = next
        try DocumentRecords.insertRevisions(db, revisions)
        for (document, row) in zip(run, documents) {
            try AttachmentRecords.insert(db, sequence: row.sequence, document.attachments)
            job.counts.externalBytes += document.update.body.count
            job.counts.document(wasDeleted: nil, isDeleted: document.update.isDeleted)
            results.append(.success(document.newest))
        }
    }
}

/// A replicated update the fast path can write if its id is new.
struct ReplicatedDocument {
    let update: DocumentUpdate
    /// `update.history[0]`: the revision stored as the leaf and the winner.
    let newest: RevisionID
    let attachments: [StoredAttachment]

    /// Nil when the general path must decide: a malformed or stemmed history, or a stub.
    init?(_ update: DocumentUpdate, revsLimit: Int, blobs: BlobStore?) throws {
        let history = update.history
        guard let newest = history.first, history.count <= min(revsLimit, Inserter.runHistoryLimit) else { return nil }
        for (index, rev) in history.enumerated() where rev.generation != newest.generation - index { return nil }
        guard case .success(let attachments) = try AttachmentRecords.resolveWithoutParent(
            update.attachments, generation: newest.generation, blobs: blobs) else { return nil }
        self.update = update
        self.newest = newest
        self.attachments = attachments
    }
}
