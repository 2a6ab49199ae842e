/// The fast path of `new_edits=true` for ids that have never been written: what
/// most of a `_bulk_docs` load is.
///
/// The general path reads the document (a miss), inserts an empty `docs` row,
/// inserts the revision, then updates the `docs` row with its seq and winner:
/// four statements and two index moves (`docs_by_seq`) per document. Here the
/// `docs` row is inserted once in its final state, and its UNIQUE `docid`
/// answers whether the id exists (`ON CONFLICT DO NOTHING` inserts nothing then).
/// A new document's tree is one leaf, so there is nothing to stem and it is its
/// own winner.
///
/// Runs of such documents are written `runLength` at a time by one multi-row
/// INSERT per table: per statement SQLite opens cursors, checks the schema,
/// updates `sqlite_sequence` and resets, and that cost was as large as the
/// b-tree work of a row. A run is all or nothing: when fewer `docs` rows went in
/// than were given (an id exists, or appears twice in the run), the rows that did
/// go in are deleted again (their row ids are past the previous largest, so no
/// other row has them) and the run's documents go one by one, in order, through
/// `edit` (`create`, else the general path), exactly as if there were no run.
/// Not a nested savepoint: that copies every page it touches to the sub-journal
/// first. Not a `SELECT ... IN` of the ids first: that cost 7 % of a bulk load.
/// Anything that is not a plain creation (a `_rev`, attachment stubs) ends the
/// current run first, so updates still apply in the order given.
extension Inserter {
    /// Documents per multi-row INSERT (6 parameters a `docs` row, 7 a `revs` row: far below SQLite's limit).
    static let runLength = 50

    /// `new_edits=true` for a whole job: `edit` for each update, with runs of new ids batched.
    static func edit(_ db: Connection, _ updates: [DocumentUpdate],
                     job: inout Job) throws -> [Result<RevisionID, StoreError>] {
        try inRuns(updates, job: &job,
                   candidate: { update, job in
                       update.baseRevision == nil ? try NewDocument(update, blobs: job.blobs) : nil
                   },
                   writeRun: { run, job, results in
                       try insert(db, run, job: &job, results: &results) { try edit(db, $0, job: &$1) }
                   },
                   single: { update, job in try edit(db, update, job: &job) })
    }

    /// Applies `updates` in order: the ones `candidate` takes go to `writeRun` in runs
    /// of up to `runLength`, every other one alone to `single`, after the run before it.
    static func inRuns<Candidate>(
        _ updates: [DocumentUpdate], job: inout Job,
        candidate: (DocumentUpdate, Job) throws -> Candidate?,
        writeRun: ([Candidate], inout Job, inout [Result<RevisionID, StoreError>]) throws -> Void,
        single: (DocumentUpdate, inout Job) throws -> Result<RevisionID, StoreError>
    ) throws -> [Result<RevisionID, StoreError>] {
        var results: [Result<RevisionID, StoreError>] = []
        results.reserveCapacity(updates.count)
        var run: [Candidate] = []
        func flush() throws {
            if !run.isEmpty { try writeRun(run, &job, &results) }
            run = []
        }
        for update in updates {
            if let accepted = try candidate(update, job) {
                run.append(accepted)
                if run.count == runLength { try flush() }
            } else {
                try flush()
                results.append(try single(update, &job))
            }
        }
        try flush()
        return results
    }

    /// Creates document `update.id` at generation 1; nil when the general path must decide.
    static func create(_ db: Connection, _ update: DocumentUpdate,
                       job: inout Job) throws -> Result<RevisionID, StoreError>? {
        guard let new = try NewDocument(update, blobs: job.blobs) else { return nil }
        var next = job
        let sequence = next.nextSequence()
        guard let rowID = try DocumentRecords.insertNewDocument(db, id: update.id, sequence: sequence, winner: new.rev,
                                                                 isDeleted: update.isDeleted) else { return nil }
        job = next
        try DocumentRecords.insertRevision(db, sequence: sequence, rowID: rowID, rev: new.rev, parent: nil,
                                           isLeaf: true, isDeleted: update.isDeleted, body: update.body)
        try finishCreation(db, new, sequence: sequence, job: &job)
        return .success(new.rev)
    }

    /// Writes `run` with one INSERT into `docs` and few into `revs` (each document's
    /// history as a chain, only the newest with a body), or, when an id exists,
    /// every document of the run through `oneByOne`, in order; appends a result per document.
    static func insert(_ db: Connection, _ run: [NewDocument], job: inout Job,
                       results: inout [Result<RevisionID, StoreError>],
                       oneByOne: (DocumentUpdate, inout Job) throws -> Result<RevisionID, StoreError>) throws {
        // Row ids past the largest are free; SQLite picks the same way when left to choose.
        let lastRowID = try DocumentRecords.lastRowID(db)
        var next = job
        var documents: [DocumentRecords.NewDocumentRow] = []
        var revisions: [DocumentRecords.RevisionRow] = []
        documents.reserveCapacity(run.count)
        revisions.reserveCapacity(run.count)
        for (index, document) in run.enumerated() {
            let rowID = lastRowID + 1 + Int64(index)
            let update = document.update
            var parent: Int64?
            // Oldest first, each the parent of the next; only the newest has a body.
            for (depth, rev) in document.history.enumerated().reversed() {
                let isLeaf = depth == 0
                let sequence = next.nextSequence()
                revisions.append(DocumentRecords.RevisionRow(
                    sequence: sequence, rowID: rowID, rev: rev, parent: parent, isLeaf: isLeaf,
                    isDeleted: isLeaf && update.isDeleted, body: isLeaf ? update.body : nil))
                parent = sequence
            }
            documents.append(DocumentRecords.NewDocumentRow(rowID: rowID, id: update.id, sequence: next.lastSequence,
                                                            winner: document.rev, isDeleted: update.isDeleted))
        }
        guard try DocumentRecords.insertNewDocuments(db, documents) else {
            try DocumentRecords.deleteDocuments(db, rowIDs: lastRowID + 1...lastRowID + Int64(run.count))
            for document in run { results.append(try oneByOne(document.update, &job)) }
            return
        }
        job = next
        try DocumentRecords.insertRevisions(db, revisions)
        for (document, row) in zip(run, documents) {
            try finishCreation(db, document, sequence: row.sequence, job: &job)
            results.append(.success(document.rev))
        }
    }

    private static func finishCreation(_ db: Connection, _ new: NewDocument, sequence: Int64, job: inout Job) throws {
        try AttachmentRecords.insert(db, sequence: sequence, new.attachments)
        job.counts.externalBytes += new.update.body.count
        job.counts.document(wasDeleted: nil, isDeleted: new.update.isDeleted)
    }
}

/// An update that creates a document, with the revisions it stores and what its
/// newest one holds.
struct NewDocument {
    let update: DocumentUpdate
    /// Newest first: the one revision of an edit, or a replicated history.
    let history: [RevisionID]
    let attachments: [StoredAttachment]
    /// The newest revision: the leaf, and the winner.
    var rev: RevisionID { history[0] }

    /// Nil when the attachments need a parent (stubs) or a blob is missing: the general path decides then.
    init?(_ update: DocumentUpdate, blobs: BlobStore?) throws {
        guard case .success(let attachments) = try AttachmentRecords.resolveWithoutParent(
            id: update.id, update.attachments, generation: 1, blobs: blobs) else { return nil }
        self.update = update
        self.attachments = attachments
        history = [RevisionHasher.child(of: nil, isDeleted: update.isDeleted, body: update.body,
                                        attachments: attachments)]
    }
}
