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
                       try NewDocument(replicated: update, revsLimit: job.revsLimit, blobs: job.blobs)
                   },
                   writeRun: { run, job, results in
                       try insert(db, run, job: &job, results: &results) { try merge(db, $0, job: &$1) }
                   },
                   single: { update, job in try merge(db, update, job: &job) })
    }
}

extension NewDocument {
    /// A replicated update the fast path can write if its id is new; nil when the
    /// general path must decide: a malformed or stemmed history, or a stub.
    init?(replicated update: DocumentUpdate, revsLimit: Int, blobs: BlobStore?) throws {
        let history = update.history
        guard let newest = history.first, history.count <= min(revsLimit, Inserter.runHistoryLimit) else { return nil }
        for (index, rev) in history.enumerated() where rev.generation != newest.generation - index { return nil }
        guard case .success(let attachments) = try AttachmentRecords.resolveWithoutParent(
            id: update.id, update.attachments, generation: newest.generation, blobs: blobs) else { return nil }
        self.update = update
        self.history = history
        self.attachments = attachments
    }
}
