import Foundation
import Glibc
import Testing
@testable import SetteeStore

/// `SmallBlobFile` and its pack file (`BlobPackAppender`, `BlobPackReader`): where each
/// size of blob goes, that every one reads back, and that compaction gives space back;
/// with direct I/O and through the page cache (`directIO: false`, what a file system
/// without direct I/O gets).
@Suite struct SmallBlobFileTests {
    /// A fresh directory per test, removed when `body` returns.
    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("settee-small-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await body(dir)
    }

    func blob(_ count: Int) -> (key: BlobKey, bytes: [UInt8]) {
        let key = BlobKey(md5: (0..<16).map { _ in UInt8.random(in: 0...255) })!
        return (key, (0..<count).map { _ in UInt8.random(in: 0...255) })
    }

    /// The pack file's size and the bytes the file system holds for it.
    func packSize(_ dir: String) -> (size: Int64, allocated: Int64) {
        var info = stat()
        guard stat(dir + "/" + BlobPackAppender.fileName, &info) == 0 else { return (0, 0) }
        return (Int64(info.st_size), Int64(info.st_blocks) * 512)
    }

    @Test(arguments: [true, false]) func everySizeReadsBack(directIO: Bool) async throws {
        try await withDirectory { dir in
            let file = SmallBlobFile(directory: dir, directIO: directIO)
            defer { file.close() }
            // Around the row/pack boundary, one block, and more than the staging buffer.
            let sizes = [0, 100, SmallBlobFile.packMinimum - 1, SmallBlobFile.packMinimum, 100_000,
                         BlobPackAppender.bufferSize + 1]
            let blobs = sizes.map(blob)
            try await file.insert(blobs)
            for stored in blobs { #expect(try file.read(stored.key) == stored.bytes) }
            #expect(try Set(file.keys()) == Set(blobs.map(\.key)))
            // Only the blobs of packMinimum bytes or more are in the pack, each from a block.
            let packed = sizes.filter { $0 >= SmallBlobFile.packMinimum }
            #expect(packSize(dir).size == Int64(packed.map(BlobPackAppender.paddedLength).reduce(0, +)))
        }
    }

    @Test(arguments: [true, false]) func sameBytesArePackedOnce(directIO: Bool) async throws {
        try await withDirectory { dir in
            let file = SmallBlobFile(directory: dir, directIO: directIO)
            defer { file.close() }
            let one = blob(50_000)
            try await file.insert([one, one])
            try await file.insert([one])
            #expect(packSize(dir).size == Int64(BlobPackAppender.paddedLength(50_000)))
            #expect(try file.read(one.key) == one.bytes)
        }
    }

    @Test(arguments: [true, false]) func reopenedFileAppendsAfterWhatIsThere(directIO: Bool) async throws {
        try await withDirectory { dir in
            let first = blob(40_000), second = blob(70_000)
            let before = SmallBlobFile(directory: dir, directIO: directIO)
            try await before.insert([first])
            before.close()
            let after = SmallBlobFile(directory: dir, directIO: directIO)
            defer { after.close() }
            try await after.insert([second])
            #expect(try after.read(first.key) == first.bytes)
            #expect(try after.read(second.key) == second.bytes)
        }
    }

    @Test(arguments: [true, false]) func sweepGivesPackBytesBack(directIO: Bool) async throws {
        try await withDirectory { dir in
            let file = SmallBlobFile(directory: dir, directIO: directIO)
            defer { file.close() }
            let kept = blob(1 << 20), gone = [blob(1 << 20), blob(1 << 20)]
            try await file.insert([gone[0], kept, gone[1]])
            let before = packSize(dir)
            #expect(try file.sweep(keeping: [kept.key]) == 2)
            let after = packSize(dir)
            #expect(after.size == before.size)
            #expect(after.allocated <= before.allocated - 2 * (1 << 20))
            #expect(try file.read(kept.key) == kept.bytes)
            #expect(try file.read(gone[0].key) == nil)
            #expect(try file.keys() == [kept.key])
        }
    }

    @Test(arguments: [true, false]) func bytesNoRowNamesArePunched(directIO: Bool) async throws {
        try await withDirectory { dir in
            let kept = blob(30_000)
            let before = SmallBlobFile(directory: dir, directIO: directIO)
            try await before.insert([kept])
            before.close()
            // What a crash between the pack's fdatasync and the rows' commit leaves.
            let leftover = [UInt8](repeating: 7, count: 1 << 20)
            let fd = open(dir + "/" + BlobPackAppender.fileName, O_WRONLY | O_APPEND)
            #expect(write(fd, leftover, leftover.count) == leftover.count)
            close(fd)
            let file = SmallBlobFile(directory: dir, directIO: directIO)
            defer { file.close() }
            let withLeftover = packSize(dir)
            #expect(try file.sweep(keeping: [kept.key]) == 0)
            #expect(packSize(dir).allocated <= withLeftover.allocated - (1 << 20))
            // A later blob goes after them; both read back.
            let next = blob(20_000)
            try await file.insert([next])
            #expect(packSize(dir).size == withLeftover.size + Int64(BlobPackAppender.paddedLength(20_000)))
            #expect(try file.read(kept.key) == kept.bytes)
            #expect(try file.read(next.key) == next.bytes)
        }
    }

    @Test func rowsFromBeforeThePackFileStillRead() async throws {
        try await withDirectory { dir in
            // A small.sqlite as written before the pack file: one table, every blob a row.
            let old = blob(100_000)
            let db = try Connection(path: dir + "/" + SmallBlobFile.fileName)
            try db.execute("CREATE TABLE blobs (digest BLOB PRIMARY KEY, data BLOB NOT NULL)")
            try db.run("INSERT INTO blobs(digest, data) VALUES (?, ?)", [.blob(old.key.md5), .blob(old.bytes)])
            db.close()
            let file = SmallBlobFile(directory: dir)
            defer { file.close() }
            #expect(try file.read(old.key) == old.bytes)
            #expect(try file.contains(old.key))
            let new = blob(100_000)
            try await file.insert([new, old])
            #expect(try Set(file.keys()) == [old.key, new.key])
            #expect(try file.read(new.key) == new.bytes)
            #expect(packSize(dir).size == Int64(BlobPackAppender.paddedLength(100_000)))
        }
    }
}
