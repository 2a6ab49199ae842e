internal import Glibc

/// The checks a database passes as it opens; what fails them makes it read-only
/// (`DatabaseDamage`).
///
/// 1. A damage mark left by an earlier run (`DamageMarker`): a malformed page a read met
///    stays known across restarts until `settee check --repair` clears it.
/// 2. The update sequence against the last committed one (`CommittedSequenceFile`).
/// 3. `PRAGMA quick_check` (https://sqlite.org/pragma.html#pragma_quick_check: the
///    b-tree structure, without matching indexes to tables) for files up to
///    `quickCheckLimit`. Measured with the page cache warm, about 1.1 ms a MB: 0.8 ms
///    for 1,000 documents (0.5 MB), 4.4 ms for 10,000 (4 MB), 47 ms for 100,000 (42 MB);
///    `integrity_check` costs 3–5 times that. It catches broken page structure (a cell
///    pointing past its page); a changed byte inside a record often passes it, which a
///    read then meets.
enum OpenCheck {
    static let quickCheckLimit: Int64 = 16 << 20

    /// The damage found, or nil; a sound database's sequence record is brought up to date.
    /// - Parameter quickCheck: false when this process checked the file already and
    ///   closed it cleanly since (a database opened again after an idle close).
    static func run(_ db: Connection, path: String, sequence: Int64, record: CommittedSequenceFile,
                    quickCheck: Bool = true) -> DatabaseDamage? {
        if let marked = DamageMarker.read(databasePath: path) { return marked }
        let recorded = record.read()
        if let damage = DatabaseDamage.check(updateSequence: sequence, recorded: recorded, recordPath: record.path) {
            return damage
        }
        if quickCheck, let damage = Self.quickCheck(db, path: path) { return damage }
        if recorded != sequence { record.record(sequence) }
        return nil
    }

    /// `PRAGMA quick_check` of a small enough file; nil when it passes or was skipped.
    static func quickCheck(_ db: Connection, path: String) -> DatabaseDamage? {
        guard size(of: path) + size(of: path + "-wal") <= quickCheckLimit else { return nil }
        var rows: [String] = []
        do {
            try db.query("PRAGMA quick_check(5)") { rows.append($0.text(0) ?? "") }
        } catch {
            rows = ["\(error)"]
        }
        guard rows != ["ok"] else { return nil }
        return DatabaseDamage(reason: "PRAGMA quick_check at open: " + rows.joined(separator: "; ")
            + "; the database is read-only until `settee check --repair`")
    }

    private static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
