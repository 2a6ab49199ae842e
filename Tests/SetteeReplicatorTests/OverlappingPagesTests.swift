import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeStore
import Synchronization
import Testing

/// Chunks of consecutive pages overlap, so they finish out of order; a checkpoint
/// must still never pass a change that is not written (CouchDB Replication Protocol,
/// "Record Replication Checkpoint": only after the target has the changes).
@Suite struct OverlappingPagesTests {
    @Test func aPageIsWrittenOnlyWithEveryPageBeforeIt() {
        var pages = PagesInFlight()
        let clock = ContinuousClock()
        let first = pages.add(lastSeq: 10, chunks: 2, readAt: clock.now)
        let second = pages.add(lastSeq: 20, chunks: 1, readAt: clock.now)
        let third = pages.add(lastSeq: 30, chunks: 0, readAt: nil)
        pages.chunkWritten(of: second)
        #expect(pages.popWritten() == nil)  // the first page is still copying
        pages.chunkWritten(of: first)
        #expect(pages.popWritten() == nil)
        pages.chunkWritten(of: first)
        let written = pages.popWritten()
        #expect(written?.lastSeq == 30 && written?.readAt != nil && pages.count == 0)
        _ = third
    }

    @Test func aCheckpointNeverPassesAChunkStillBeingWritten() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let source = try store.database("a")
        for i in 0..<60 { try await source.put(String(format: "doc%03d", i)) }
        _ = try store.database("b")
        let target = HeldFirstWrite(store.peer("b"), source: store.peer("a"))
        var options = ReplicationOptions()
        options.batchSize = 10  // six pages of one chunk each
        options.workers = 4
        options.checkpointInterval = .zero  // consider a checkpoint after every page
        let outcome = try await Replication(source: store.peer("a"), target: target, options: options,
                                            logger: Logger(label: "test")).run()
        #expect(outcome.stats.docsWritten == 60)
        let (saved, violations, overtaken) = target.record.withLock { ($0.saved, $0.violations, $0.overtaken) }
        #expect(overtaken, "later pages were written while the first was held")
        #expect(saved.count >= 2 && saved.last == 60, "checkpoints \(saved)")
        #expect(violations.isEmpty, "\(violations)")
    }
}

/// A target that holds its first write until three later ones are done, and checks
/// every checkpoint saved against what it has written.
final class HeldFirstWrite: ForwardingPeer, @unchecked Sendable {
    struct Record {
        var writes = 0
        var laterWritesDone = 0
        var written = Set<String>()
        var saved: [Int] = []
        var violations: [String] = []
        var overtaken = false
        var release: CheckedContinuation<Void, Never>?
    }
    let record = Mutex(Record())
    let source: LocalPeer
    init(_ inner: LocalPeer, source: LocalPeer) {
        self.source = source
        super.init(inner)
    }

    override func write(_ revisions: [TransferRevision]) async throws -> [WriteFailure] {
        let isFirst = record.withLock { $0.writes += 1; return $0.writes == 1 }
        if isFirst {
            // Released by the third later write, or after 10 s if none overtakes it
            // (the replication then waits for this page: the test fails, it does not hang).
            let timeout = Task {
                try? await Task.sleep(for: .seconds(10))
                record.withLock { $0.release.take() }?.resume()
            }
            await withCheckedContinuation { continuation in
                let now = record.withLock { record -> Bool in
                    if record.laterWritesDone >= 3 { return true }
                    record.release = continuation
                    return false
                }
                if now { continuation.resume() }
            }
            timeout.cancel()
            record.withLock { $0.overtaken = $0.laterWritesDone >= 3 }
        }
        let failures = try await inner.write(revisions)
        let release = record.withLock { record -> CheckedContinuation<Void, Never>? in
            if !isFirst { record.laterWritesDone += 1 }
            for revision in revisions where !revision.id.isEmpty { record.written.insert(revision.id) }
            return record.laterWritesDone >= 3 ? record.release.take() : nil
        }
        release?.resume()
        return failures
    }

    override func saveCheckpoint(id: String, _ body: JSONObject) async throws {
        if let seq = body["source_last_seq"]?.intValue, seq > 0 {
            let upTo = try await source.changes(since: 0, limit: seq, filter: nil, wait: nil)
            record.withLock { record in
                record.saved.append(seq)
                for row in upTo.rows where !record.written.contains(row.id) {
                    record.violations.append("checkpoint \(seq) passes \(row.id), not written")
                }
            }
        }
        try await inner.saveCheckpoint(id: id, body)
    }
}
