internal import FoundationEssentials

/// What `settee check` found in one database, and what `--repair` did about it.
public struct DatabaseCheckReport: Sendable {
    /// The database checked.
    public let database: String
    /// Every problem found, one line each.
    public var problems: [String] = []
    /// What the repair rebuilt or reset.
    public var repaired: [String] = []
    /// What is gone for good (it cannot be rebuilt from what is left).
    public var lost: [String] = []

    /// Whether nothing was found wrong.
    public var isSound: Bool { problems.isEmpty }
}

/// `settee check DB [--repair]`: the database file against SQLite's own checks
/// (`PRAGMA integrity_check`, which also compares every index with its table), the update
/// sequence against the one last committed (`CommittedSequenceFile`), and every blob a
/// revision names against its digest (`BlobVerification`).
///
/// Run it on a data directory no server has open. `--repair` rebuilds the indexes
/// (`REINDEX`), accepts the sequence the file has (the updates past it are reported lost),
/// reports damaged or missing attachments as lost (their bytes cannot be rebuilt), and
/// removes the server's damage mark once the file passes, making the database writable.
/// Blocking: call it from a thread of its own (the command line), never the cooperative pool.
public enum DatabaseCheck {
    /// - Throws: `StoreError.databaseNotFound`; `.sqlite` when the file cannot be opened at all.
    public static func run(_ name: String, in directory: DatabaseDirectory, repair: Bool) throws -> DatabaseCheckReport {
        let path = directory.filePath(name)
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.databaseNotFound(name) }
        var report = DatabaseCheckReport(database: name)
        let db = try Connection(path: path)
        defer { db.close() }
        checkFile(db, repair: repair, into: &report)
        checkBodies(db, repair: repair, into: &report)
        checkSequence(db, path: path, repair: repair, into: &report)
        checkBlobs(db, path: path, repair: repair, into: &report)
        if repair, !report.isSound { rebuildIndexes(db, into: &report) }
        checkMark(db, path: path, repair: repair, into: &report)
        return report
    }

    /// SQLite's checks of the file's pages, records and indexes.
    private static func checkFile(_ db: Connection, repair: Bool, into report: inout DatabaseCheckReport) {
        let found = integrityProblems(db)
        guard !found.isEmpty else { return }
        report.problems += found.map { "database file: " + $0 }
        guard repair else { return }
        do {
            try db.execute("REINDEX")
            let left = integrityProblems(db)
            if left.isEmpty {
                report.repaired.append("indexes rebuilt (REINDEX); the file passes integrity_check")
            } else {
                report.lost += left.map { "database file, not repairable in place: " + $0 }
                report.lost.append("copy out what is readable with `sqlite3 \(db.path) .recover` and replicate it")
            }
        } catch {
            report.lost.append("database file: REINDEX failed: \(error)")
        }
    }

    /// Every revision body against the checksum stored with it (`BodyChecksum`): SQLite's
    /// own checks see pages and records, not what a record holds.
    private static func checkBodies(_ db: Connection, repair: Bool, into report: inout DatabaseCheckReport) {
        var damaged: [String] = []
        do {
            try db.query("""
                SELECT d.docid, r.revid FROM revs r JOIN docs d ON d.doc_id = r.doc_id
                WHERE r.json IS NOT NULL AND r.crc IS NOT NULL AND settee_crc(r.json) != r.crc
                """) { row in damaged.append("\(row.text(0) ?? "?") \(row.text(1) ?? "?")") }
        } catch {
            return report.problems.append("document bodies: cannot read them: \(error)")
        }
        guard !damaged.isEmpty else { return }
        report.problems.append("document bodies: \(damaged.count) do not match their checksum: "
            + damaged.prefix(10).joined(separator: ", "))
        if repair {
            report.lost += damaged.map { "body of \($0): replicate it back from a copy that has it" }
        }
    }

    /// View and Mango indexes are derived from the documents: a repair drops their tables, and
    /// each is built again, from the documents as they now are, by the next query that uses it.
    private static func rebuildIndexes(_ db: Connection, into report: inout DatabaseCheckReport) {
        do {
            var count = 0
            try db.query("SELECT count(*) FROM key_indexes") { count = Int($0.int64(0)) }
            guard count > 0 else { return }
            try db.execute("BEGIN IMMEDIATE")
            do {
                try KeyIndexRecords.drop(db, keeping: [])
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
            report.repaired.append("\(count) view and Mango indexes dropped; each is rebuilt by its next query")
        } catch {
            report.lost.append("view and Mango indexes: cannot drop them: \(error)")
        }
    }

    /// `PRAGMA integrity_check`'s rows other than `ok` (https://sqlite.org/pragma.html#pragma_integrity_check).
    static func integrityProblems(_ db: Connection) -> [String] {
        var rows: [String] = []
        do {
            try db.query("PRAGMA integrity_check(100)") { rows.append($0.text(0) ?? "") }
        } catch {
            return ["\(error)"]
        }
        return rows == ["ok"] ? [] : rows
    }

    /// The update sequence against the last committed one recorded outside the WAL.
    private static func checkSequence(_ db: Connection, path: String, repair: Bool,
                                      into report: inout DatabaseCheckReport) {
        let record = CommittedSequenceFile(databasePath: path)
        guard let sequence = try? DocumentRecords.updateSequence(db) else { return }
        guard let damage = DatabaseDamage.check(updateSequence: sequence, recorded: record.read(),
                                                recordPath: record.path) else { return }
        report.problems.append(damage.reason)
        guard repair, let recorded = record.read() else { return }
        report.lost.append("updates \(sequence + 1) to \(recorded) (\(recorded - sequence) committed updates); "
            + "replicate the documents back from a copy that has them")
        if record.record(sequence) { report.repaired.append("update sequence \(sequence) accepted") }
    }

    /// The mark a server left when it found the database damaged (`DamageMarker`):
    /// removed by a repair once the file passes its checks and the sequence is accepted.
    private static func checkMark(_ db: Connection, path: String, repair: Bool, into report: inout DatabaseCheckReport) {
        guard let marked = DamageMarker.read(databasePath: path) else { return }
        report.problems.append("marked damaged by the server: \(marked.reason)")
        let record = CommittedSequenceFile(databasePath: path)
        guard repair, integrityProblems(db).isEmpty, let sequence = try? DocumentRecords.updateSequence(db),
              DatabaseDamage.check(updateSequence: sequence, recorded: record.read(), recordPath: record.path) == nil
        else { return }
        DamageMarker.remove(databasePath: path)
        report.repaired.append("damage mark removed; the database is writable again")
    }
}
