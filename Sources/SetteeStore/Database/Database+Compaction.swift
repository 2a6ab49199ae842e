/// Compaction: drops the bodies of non-leaf revisions (CouchDB keeps only leaf
/// bodies after compaction, the tree itself stays), then VACUUMs to give the
/// space back to the file system. Runs in the background: the body-dropping
/// is one ordinary write job; VACUUM runs on the writer queue outside any
/// transaction, so writes simply wait behind it and readers keep their WAL snapshots.
extension Database {
    /// Drops bodies of non-leaf revisions and reclaims space. Returns at once;
    /// `info().isCompacting` is true while it runs.
    public func startCompaction() async throws {
        guard compaction.begin() else { return }
        Task.detached { [self] in
            defer { compaction.end() }
            try? await compact()
        }
    }

    /// The compaction itself; `startCompaction` runs it in the background.
    func compact() async throws {
        try await writer.write { db in
            try db.run("UPDATE revs SET json = NULL WHERE current = 0 AND json IS NOT NULL")
        }
        try await writer.withoutTransaction { db in
            try db.execute("VACUUM")
            // Fold the WAL back so file size reflects the vacuumed database.
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
