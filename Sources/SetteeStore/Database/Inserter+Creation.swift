/// The fast path of `new_edits=true` for an id that has never been written:
/// what most of a `_bulk_docs` load is.
///
/// The general path reads the document (a miss), inserts an empty `docs` row,
/// inserts the revision, then updates the `docs` row with its seq and winner:
/// four statements and two index moves (`docs_by_seq`) per document. Here the
/// `docs` row is inserted once in its final state, and its UNIQUE `docid`
/// answers whether the id exists (`ON CONFLICT DO NOTHING` inserts nothing then),
/// so a new document costs two statements. When the id exists, or the attachments
/// cannot be resolved without a parent (stubs), nothing has been written and the
/// general path runs as before.
///
/// A new document's tree is one leaf, so there is nothing to stem and it is its
/// own winner.
extension Inserter {
    /// Creates document `update.id` at generation 1; nil when the general path must decide.
    static func create(_ db: Connection, _ update: DocumentUpdate,
                       job: inout Job) throws -> Result<RevisionID, StoreError>? {
        guard case .success(let attachments) = try AttachmentRecords.resolve(
            db, update.attachments, parent: nil, generation: 1, blobs: job.blobs) else { return nil }
        let rev = RevisionHasher.child(of: nil, isDeleted: update.isDeleted, body: update.body,
                                       attachments: attachments)
        var next = job
        let sequence = next.nextSequence()
        guard let rowID = try DocumentRecords.insertNewDocument(db, id: update.id, sequence: sequence, winner: rev,
                                                                 isDeleted: update.isDeleted) else { return nil }
        job = next
        try DocumentRecords.insertRevision(db, sequence: sequence, rowID: rowID, rev: rev, parent: nil,
                                           isLeaf: true, isDeleted: update.isDeleted, body: update.body)
        try AttachmentRecords.insert(db, sequence: sequence, attachments)
        job.counts.externalBytes += update.body.count
        job.counts.document(wasDeleted: nil, isDeleted: update.isDeleted)
        return .success(rev)
    }
}
