internal import Glibc

/// Compaction: stems every document's tree to `_revs_limit` (as CouchDB's
/// compactor does, so a lowered limit takes effect without new writes), drops the
/// bodies and attachment rows of non-leaf revisions (CouchDB keeps only leaf
/// bodies after compaction, the tree itself stays), deletes blobs (rows and files) no remaining
/// revision names, then VACUUMs to give the space back to the file system, and
/// measures the bytes in use (`sizes.active`). Runs in the background: the body-dropping
/// is one ordinary write job; VACUUM runs on the writer queue outside any
/// transaction, so writes simply wait behind it and readers keep their WAL snapshots.
extension Database {
    /// Drops bodies of non-leaf revisions and reclaims space. Returns at once;
    /// `info().isCompacting` is true while it runs, and `failed` hears of an error
    /// that stopped it (what was committed before stays: each step is a transaction),
    /// which `_active_tasks` then shows too (`StoreTasks.fail`).
    /// - Throws: `StoreError.io` with `ENOSPC` when the file system lacks the space
    ///   VACUUM needs (`requireSpaceToCompact`): nothing is started.
    public func startCompaction(failed: @escaping @Sendable (any Error) -> Void = { _ in }) async throws {
        try await requireSpaceToCompact()
        guard compaction.begin() else { return }
        Task.detached { [self] in
            defer { compaction.end() }
            do {
                try await compact()
            } catch {
                failed(error)
            }
        }
    }

    /// Refuses a compaction that cannot finish for want of disk space. VACUUM copies the
    /// live pages into a temporary database and then writes them back through the WAL,
    /// so "as much as twice the size of the original database file is required in free
    /// disk space" (https://sqlite.org/lang_vacuum.html); this asks for twice the used pages.
    func requireSpaceToCompact() async throws {
        let path = self.path
        // On a reader's queue: statvfs blocks, like sqlite3_step (STYLE 17).
        try await readers.read { db in
            let pageSize = try db.integer("PRAGMA page_size") ?? 0
            let used = ((try db.integer("PRAGMA page_count") ?? 0) - (try db.integer("PRAGMA freelist_count") ?? 0)) * pageSize
            var fs = statvfs()
            guard statvfs(path, &fs) == 0 else { throw StoreError.io(operation: "statvfs", path: path, errno: errno) }
            try Self.requireSpaceToCompact(usedBytes: used, availableBytes: Int64(fs.f_bavail) * Int64(fs.f_frsize), path: path)
        }
    }

    /// The rule of `requireSpaceToCompact`: twice the used bytes free, else `.io` ENOSPC.
    static func requireSpaceToCompact(usedBytes: Int64, availableBytes: Int64, path: String) throws {
        guard availableBytes >= 2 * usedBytes else {
            throw StoreError.io(operation: "compact (\(2 * usedBytes) bytes free needed, \(availableBytes) available)",
                                path: path, errno: ENOSPC)
        }
    }

    /// How long compaction's final checkpoint waits for readers (writes wait behind it).
    static let checkpointWaitMilliseconds = 1_000

    /// The compaction itself; `startCompaction` runs it in the background.
    func compact() async throws {
        // `_active_tasks`' `database_compaction`: half done once revisions are stemmed and
        // old bodies dropped, the rest is the VACUUM and the WAL checkpoint.
        let total = Int(changesNotifier.sequence)
        let task = tasks.begin(.compaction, database: name, totalChanges: total)
        do {
            try await compactSteps(task: task, total: total)
            tasks.end(task)
        } catch {
            tasks.fail(task, error: "\(error)")
            throw error
        }
    }

    /// The steps: stem and drop old bodies, sweep blobs and VACUUM, fold the WAL back.
    private func compactSteps(task: Int, total: Int) async throws {
        try await writer.write { db in
            try Self.stemAll(db)
            // Attachment rows go with the bodies: a non-leaf revision keeps neither.
            try db.run("DELETE FROM attachments WHERE sequence IN (SELECT sequence FROM revs WHERE current = 0)")
            try db.run("UPDATE revs SET json = NULL WHERE current = 0 AND json IS NOT NULL")
        }
        tasks.progress(task, changesDone: total / 2)
        let blobs = self.blobs
        try await writer.withoutTransaction { db in
            // On the writer queue, between transactions: every committed revision's
            // blobs are in `referenced`; those of uploads whose revisions are still to
            // commit are pinned (`BlobPins`), and the sweep leaves them alone. A write
            // naming a blob still re-checks it exists (AttachmentRecords.resolve).
            try blobs.sweep(keeping: try AttachmentRecords.referencedKeys(db))
            try db.execute("VACUUM")
            try db.execute("BEGIN IMMEDIATE")
            try FileUsage.measureSlack(db)
            try db.execute("COMMIT")
        }
        try await writer.withReadersOffTheWAL { db in
            // Fold the WAL back so file size reflects the vacuumed database. The
            // checkpoint waits for readers to leave the WAL, and every write waits
            // behind it on the writer queue: a long read (a large `_all_docs`) would
            // hold writes for the whole busy timeout. So it waits a second at most;
            // if a reader is still there, the WAL is left as it is (SQLite reuses it
            // from the start after the next checkpoint that finds no reader).
            try db.withBusyTimeout(milliseconds: Self.checkpointWaitMilliseconds) {
                try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }

    /// Stems each document with more revisions than `_revs_limit` allows on one path.
    /// Only documents with more rows than the limit can have such a path.
    static func stemAll(_ db: Connection) throws {
        let limit = try DocumentRecords.revsLimit(db)
        var ids: [String] = []
        try db.query("""
            SELECT d.docid FROM docs d WHERE d.doc_id IN
                (SELECT doc_id FROM revs GROUP BY doc_id HAVING count(*) > ?)
            """, [.integer(Int64(limit))]) { ids.append($0.text(0) ?? "") }
        for id in ids {
            guard let (record, tree) = try DocumentRecords.documentAndTree(db, id: id) else { continue }
            var stemmed = tree
            try Inserter.finish(db, rowID: record.rowID, tree: &stemmed, sequence: record.sequence, revsLimit: limit)
        }
    }
}
