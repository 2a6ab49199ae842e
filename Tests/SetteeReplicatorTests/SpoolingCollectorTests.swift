import Foundation
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

@Suite struct SpoolingCollectorTests {
    @Test func smallBodiesStayInMemory() async throws {
        let collector = SpoolingCollector(directory: SpoolDirectory(path: "/nonexistent"), memoryLimit: 16)
        #expect(collector.take([1, 2, 3]))
        #expect(collector.take(Array(repeating: 9, count: 13)))
        let body = try collector.body()
        guard case .memory = body.storage else { Issue.record("expected memory"); return }
        #expect(try await body.readAll() == [1, 2, 3] + Array(repeating: 9, count: 13))
    }

    /// Past the limit the bytes so far move to a spool file and the rest follow them there.
    @Test func largeBodiesGoToASpoolFile() async throws {
        let dir = try TempDirectory(prefix: "collector")
        defer { dir.remove() }
        let collector = SpoolingCollector(directory: SpoolDirectory(path: dir.path), memoryLimit: 1024)
        let pieces = (0..<40).map { i in (0..<16_384).map { UInt8(truncatingIfNeeded: $0 ^ i) } }
        for piece in pieces { #expect(collector.take(piece)) }
        let body = try collector.body()
        guard case .spooled = body.storage else { Issue.record("expected a spool file"); return }
        #expect(body.length == 40 * 16_384)
        #expect(collector.heldBytes.isEmpty)
        #expect(try await body.readAll() == pieces.flatMap { $0 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// A spool that cannot be made stops the transfer, and says why when the body is asked for.
    @Test func aSpoolFailureStopsTheTransfer() {
        let collector = SpoolingCollector(directory: SpoolDirectory(path: "/nonexistent-\(UUID().uuidString)"),
                                          memoryLimit: 4)
        #expect(collector.take([1, 2]))
        #expect(!collector.take([3, 4, 5]))
        #expect(!collector.take([6]))
        #expect(throws: ReplicationError.self) { _ = try collector.body() }
    }
}
