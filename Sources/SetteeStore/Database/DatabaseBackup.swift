internal import FoundationEssentials
internal import Glibc

/*
 `settee backup` and `settee restore` (issue #44, item 4). A backup directory is laid out
 as a data directory: `<db>.couch`, `<db>.couch.seq` and `<db>.couch.blobs/`, so a
 restore is a copy back, and `settee check --data-dir BACKUP` checks a backup.

 A backup is consistent while a server goes on writing, by the order of its copies:
 1. the database file, with SQLite's online backup API in one step (one read
    transaction: one snapshot, https://sqlite.org/backup.html);
 2. the small blobs' `small.sqlite` the same way, after it: every small blob a revision
    of the snapshot names was committed there before that revision was;
 3. the pack file and the blob files, after that: each was written and synced before the
    row or revision naming it committed. Bytes appended since are only unused.
 A compaction running meanwhile may sweep a blob the snapshot still names (its revision
 lost its body since): the backup is checked after it is taken (`DatabaseCheck`), and a
 missing blob says so rather than passing as a good backup.
*/

/// Copies databases to a backup directory and back.
public enum DatabaseBackup {
    /// Copies database `name` of `directory` into the directory `target` (made if needed).
    /// - Returns: the update sequence of the copy.
    /// - Throws: `.databaseNotFound`; `.databaseExists` when `target` holds it already;
    ///   `.sqlite`, `.io`.
    public static func backUp(_ name: String, in directory: DatabaseDirectory, to target: String) throws -> Int64 {
        let source = directory.filePath(name)
        guard exists(source) else { throw StoreError.databaseNotFound(name) }
        try makeDirectory(target)
        let copy = target + "/" + DatabaseFileName.file(for: name)
        guard !exists(copy) else { throw StoreError.databaseExists(name) }
        try snapshot(source, into: copy)
        let sequence = try sequenceOf(copy)
        let blobs = BlobStore.directory(forDatabaseFile: source)
        let copiedBlobs = BlobStore.directory(forDatabaseFile: copy)
        try makeDirectory(copiedBlobs)
        if exists(blobs + "/" + SmallBlobFile.fileName) {
            try snapshot(blobs + "/" + SmallBlobFile.fileName, into: copiedBlobs + "/" + SmallBlobFile.fileName)
        }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? []
        where !entry.hasPrefix(BlobStore.temporaryPrefix) && !entry.hasPrefix(SmallBlobFile.fileName) {
            try copyFile(blobs + "/" + entry, to: copiedBlobs + "/" + entry)
        }
        _ = CommittedSequenceFile(databasePath: copy).record(sequence)
        return sequence
    }

    /// Copies database `name` from the backup directory `source` into `directory`, which
    /// no server may have open.
    /// - Throws: `.databaseNotFound` (not in the backup); `.databaseExists` (in `directory`
    ///   already: delete it first); `.io`.
    public static func restore(_ name: String, from source: String, into directory: DatabaseDirectory) throws {
        let backup = source + "/" + DatabaseFileName.file(for: name)
        guard exists(backup) else { throw StoreError.databaseNotFound(name) }
        let target = directory.filePath(name)
        guard !exists(target) else { throw StoreError.databaseExists(name) }
        let blobs = BlobStore.directory(forDatabaseFile: backup)
        let targetBlobs = BlobStore.directory(forDatabaseFile: target)
        try makeDirectory(targetBlobs)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? [] {
            try copyFile(blobs + "/" + entry, to: targetBlobs + "/" + entry)
        }
        if exists(backup + CommittedSequenceFile.suffix) {
            try copyFile(backup + CommittedSequenceFile.suffix, to: target + CommittedSequenceFile.suffix)
        }
        // The database file last: until it is there, nothing names the database.
        try copyFile(backup, to: target)
    }

    /// `source`'s SQLite database copied to a new file `copy`, in one snapshot.
    private static func snapshot(_ source: String, into copy: String) throws {
        let from = try Connection(path: source)
        defer { from.close() }
        // WAL mode fixes the page size: the copy is made with the source's, as the backup needs.
        let pageSize = try from.integer("PRAGMA page_size") ?? 4096
        let to = try Connection(path: copy, newFileSettings: "PRAGMA page_size = \(pageSize);")
        defer { to.close() }
        try from.backUp(into: to)
    }

    private static func sequenceOf(_ path: String) throws -> Int64 {
        let db = try Connection(path: path)
        defer { db.close() }
        return try DocumentRecords.updateSequence(db)
    }

    private static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    private static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw StoreError.io(operation: "mkdir", path: path, errno: errno)
        }
    }

    /// Copies `source` to a new file `target` and syncs it (a backup is for keeping).
    private static func copyFile(_ source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw StoreError.io(operation: "open", path: source, errno: errno) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw StoreError.io(operation: "open", path: target, errno: errno) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw StoreError.io(operation: "read", path: source, errno: errno) }
            if count == 0 { break }
            let written = buffer.withUnsafeBytes { write(output, $0.baseAddress, count) }
            guard written == count else { throw StoreError.io(operation: "write", path: target, errno: written < 0 ? errno : ENOSPC) }
        }
        guard fsync(output) == 0 else { throw StoreError.io(operation: "fsync", path: target, errno: errno) }
    }
}
