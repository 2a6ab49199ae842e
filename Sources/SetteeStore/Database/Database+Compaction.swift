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
    /// - Throws: `StoreError.notEnoughSpaceToCompact` when the file system lacks the space
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

    /// The rule of `requireSpaceToCompact`: twice the used bytes free, else `.notEnoughSpaceToCompact`.
    static func requireSpaceToCompact(usedBytes: Int64, availableBytes: Int64, path: String) throws {
        guard availableBytes >= 2 * usedBytes else {
            throw StoreError.notEnoughSpaceToCompact(path: path, needed: 2 * usedBytes, available: availableBytes)
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
        try await stemAllInJobs()
        try await dropOldBodiesInJobs { done in self.tasks.progress(task, changesDone: Int(done * Double(total) / 2)) }
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

    /// Documents stemmed, or revision rows visited, per write job of the first step. Each
    /// job is one savepoint whose sub-journal holds the pages it changes, and writes queued
    /// meanwhile go between jobs, so a database of any size is compacted in bounded steps
    /// (issue 47: the one-job version, on a 100,000-document database, held every write for
    /// its whole run, and its sub-journal grew with the database).
    static let documentsPerJob = 500
    static let sequencesPerJob: Int64 = 10_000

    /// Stems each document with more revisions than `_revs_limit` allows on one path.
    /// Only documents with more rows than the limit can have such a path.
    func stemAllInJobs() async throws {
        let ids = try await writer.write { db in try Self.documentsToStem(db) }
        for start in stride(from: 0, to: ids.count, by: Self.documentsPerJob) {
            let chunk = Array(ids[start..<min(ids.count, start + Self.documentsPerJob)])
            try await writer.write { db in try Self.stem(db, ids: chunk) }
        }
    }

    static func documentsToStem(_ db: Connection) throws -> [String] {
        var ids: [String] = []
        try db.query("""
            SELECT d.docid FROM docs d WHERE d.doc_id IN
                (SELECT doc_id FROM revs GROUP BY doc_id HAVING count(*) > ?)
            """, [.integer(Int64(try DocumentRecords.revsLimit(db)))]) { ids.append($0.text(0) ?? "") }
        return ids
    }

    /// Stems documents `ids` to the limit as it is now (it may have changed since they were listed).
    static func stem(_ db: Connection, ids: [String]) throws {
        let limit = try DocumentRecords.revsLimit(db)
        for id in ids {
            guard let (record, tree) = try DocumentRecords.documentAndTree(db, id: id) else { continue }
            var stemmed = tree
            try Inserter.finish(db, rowID: record.rowID, tree: &stemmed, sequence: record.sequence, revsLimit: limit)
        }
    }

    /// Drops the bodies and attachment rows of non-leaf revisions (CouchDB keeps only leaf
    /// bodies), a range of revision rows per job; `progress` hears the fraction done.
    /// A revision that stops being a leaf meanwhile keeps its body until the next compaction.
    func dropOldBodiesInJobs(sequencesPerJob: Int64 = Database.sequencesPerJob, progress: (Double) -> Void) async throws {
        let last = try await writer.write { db in try db.integer("SELECT max(sequence) FROM revs") ?? 0 }
        var from: Int64 = 0
        while from < last {
            let range: [SQLiteValue] = [.integer(from), .integer(min(last, from + sequencesPerJob))]
            try await writer.write { db in
                // Attachment rows go with the bodies: a non-leaf revision keeps neither.
                try db.run("""
                    DELETE FROM attachments WHERE sequence > ?1 AND sequence <= ?2 AND sequence IN
                        (SELECT sequence FROM revs WHERE sequence > ?1 AND sequence <= ?2 AND current = 0)
                    """, range)
                try db.run("UPDATE revs SET json = NULL WHERE sequence > ?1 AND sequence <= ?2 AND current = 0 AND json IS NOT NULL",
                           range)
            }
            from += sequencesPerJob
            progress(Double(min(from, last)) / Double(last))
        }
    }
}
