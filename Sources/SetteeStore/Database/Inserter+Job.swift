/// What the per-document steps of one write job share: the settings read once
/// per job, the document totals it changes, and the sequence counter.
///
/// Why the writer counts sequences itself instead of letting SQLite pick them:
/// a new document's `docs` row is written in one INSERT that already holds its
/// seq (`Inserter.create`), and that seq is the sequence of the `revs` row
/// written just after it. `revs.sequence` is AUTOINCREMENT, so the next one
/// SQLite would choose is `sqlite_sequence + 1`, and an explicit larger value
/// advances `sqlite_sequence` the same way (https://sqlite.org/autoinc.html).
/// The writer connection is the only one that inserts revisions and the job
/// runs inside its transaction, so the count read at the start stays true; a
/// wrong count could only fail the INSERT on the primary key, never reuse a seq.
extension Inserter {
    struct Job {
        let revsLimit: Int
        /// Where new attachments' blobs must exist (nil: not checked, tests).
        let blobs: BlobStore?
        /// What the job does to the database's document totals.
        var counts = DocumentCounts.Change()
        /// The sequence of the last revision row written (the update seq).
        private(set) var lastSequence: Int64

        init(_ db: Connection, blobs: BlobStore? = nil) throws {
            revsLimit = try DocumentRecords.revsLimit(db)
            self.blobs = blobs
            lastSequence = try DocumentRecords.updateSequence(db)
        }

        /// The sequence for the next revision row, now taken.
        mutating func nextSequence() -> Int64 {
            lastSequence += 1
            return lastSequence
        }
    }
}
