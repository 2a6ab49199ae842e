import Foundation
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

@Suite struct SpoolFileTests {
    @Test func bytesAppendedAreReadBackAtAnyOffset() throws {
        let dir = try TempDirectory(prefix: "spool")
        defer { dir.remove() }
        let spool = try SpoolFile(directory: dir.path)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try spool.append(Array(bytes[..<100_000]))
        try spool.append(Array(bytes[100_000...]))
        #expect(spool.length == 300_000)
        #expect(try spool.read(at: 0, maxLength: 300_000) == bytes)
        #expect(try spool.read(at: 299_990, maxLength: 64) == Array(bytes[299_990...]))
        #expect(try spool.read(at: 300_000, maxLength: 64).isEmpty)
    }

    /// Unlinked when made: a transfer cut by an error, a cancellation or `kill -9`
    /// leaves no file behind (the kernel frees it with the descriptor).
    @Test func theFileHasNoNameInItsDirectory() throws {
        let dir = try TempDirectory(prefix: "spool")
        defer { dir.remove() }
        let spool = try SpoolFile(directory: dir.path)
        try spool.append([1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        #expect(try spool.read(at: 0, maxLength: 8) == [1, 2, 3])
    }

    @Test func aMissingDirectoryIsASpoolFailure() {
        #expect {
            _ = try SpoolFile(directory: "/nonexistent-\(UUID().uuidString)")
        } throws: { error in
            guard case .spoolFailed(let operation, _, let code)? = error as? ReplicationError else { return false }
            return operation == "open" && code == ENOENT
        }
    }
}
