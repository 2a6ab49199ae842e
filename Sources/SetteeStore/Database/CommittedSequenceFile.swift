internal import Glibc

/// The last committed update sequence of a database, kept beside its SQLite file
/// (`<file>.seq`), outside the WAL, so that a WAL losing committed transactions is
/// noticed when the database is opened (`DatabaseDamage.check`).
///
/// Why: SQLite's WAL recovery keeps frames only up to the first one whose checksum (or
/// salt) does not match and ignores the rest without an error
/// (https://sqlite.org/fileformat2.html, "WAL File Format", checksum rules), so 16
/// flipped bytes in a `-wal` file roll a database back to an older commit silently.
///
/// Written after each commit's fsync and before its writes are answered, so the file
/// never names a sequence SQLite does not have durably (no false alarm, even after a
/// power loss). It is not fsync'd itself: after a power loss it may lag behind (the
/// check is then weaker for the last commits, never wrong), and a commit pays one
/// `pwrite` of 21 bytes and one read of `sqlite_sequence` rather than a second fsync:
/// 12 µs in a debug build against 4.9 ms for a one-document commit (its fsync), 0.25 %.
/// The record is 20 decimal digits and a newline, always at offset 0, so a rewrite
/// never leaves a longer old one's tail behind.
final class CommittedSequenceFile: @unchecked Sendable {
    // @unchecked: `fd` is used only on the database's writer queue (`record`) and at open.
    static let suffix = ".seq"
    let path: String
    private var fd: Int32 = -1

    init(databasePath: String) { path = databasePath + Self.suffix }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// The sequence recorded, or nil when there is no file (a database from before it
    /// existed) or it is unreadable (a partial record: checked no further).
    func read() -> Int64? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 32) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return Int64(text.prefix { $0 != "\n" })
    }

    /// Records `sequence`. - Returns: false when the file could not be written (the next
    /// commit tries again; the check is only weaker meanwhile).
    @discardableResult
    func record(_ sequence: Int64) -> Bool {
        if fd < 0 { fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { return false }
        let digits = String(sequence)
        let record = Array((String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "\n").utf8)
        return record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == record.count
    }

    /// Closes the descriptor `record` keeps (an idle database's close, on the writer
    /// queue); the next `record` opens it again.
    func closeDescriptor() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Removes the file (the database is deleted, or a new one is made under its name).
    static func remove(databasePath: String) {
        _ = unlink(databasePath + suffix)
    }
}
