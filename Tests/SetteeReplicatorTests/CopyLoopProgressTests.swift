import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeStore
import Synchronization
import Testing

/// What the copy loop knows of its own progress: a chunk written counts at the next page,
/// not only when the loop next waits for a chunk, and a job stopped stops its read-ahead.
/// A pull in a room of 20 that read a burst page after page with nothing left to copy kept
/// its checkpoint at the page before the burst, and one stopped while its peer was away
/// kept its read-ahead asking that peer until it answered (bench/RESULTS.md, "Churn with a margin").
@Suite struct CopyLoopProgressTests {
    /// Page 1 (doc000–doc009) is copied; pages 2–10 are already on the target. The source
    /// gives page 2 only once page 1 is written, so its chunk has ended by then.
    @Test func aChunkWrittenCountsAtTheNextPage() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a")
        _ = try store.database("b")
        for i in 0..<100 { try await a.put(String(format: "doc%03d", i)) }
        _ = try await store.replicate("a", "b") { $0.docIDs = (10..<100).map { String(format: "doc%03d", $0) } }
        let written = Signal()
        let source = GatedPeer(store.peer("a"), gate: written, gatedFrom: 10)
        let target = RecordingTarget(store.peer("b"), onWrite: written)
        var options = ReplicationOptions()
        options.batchSize = 10
        options.checkpointInterval = .zero  // a checkpoint after every page whose progress is known
        let outcome = try await WriteContext.$writer.withValue(.system) {
            try await Replication(source: source, target: target, options: options, logger: Logger(label: "test")).run()
        }
        #expect(outcome.stats.docsWritten == 10)
        let saved = target.saved.withLock { $0 }
        // Counted only once `workers` (8) pages had piled up behind it, the first checkpoint past 0 was 90.
        #expect((saved.first { $0 > 0 } ?? 100) <= 40, "checkpoints \(saved)")
        #expect(saved.last == 100)
    }

    /// A continuous job stopped while its read-ahead waits on a silent source ends that read too.
    /// Its first page is already on the target: nothing to copy, so once that page is recorded
    /// the loop's next step is to await the read-ahead. A stop that comes just before that await
    /// ended the read-ahead even before, so the stop is tried ten times, each as soon as the page
    /// is recorded: before, the read-ahead of the first run stopped at its await went on for ever.
    @Test func aStoppedJobStopsItsReadAhead() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a")
        _ = try store.database("b")
        for i in 0..<15 { try await a.put("doc\(i)") }
        _ = try await store.replicate("a", "b")
        var options = ReplicationOptions()
        options.continuous = true
        options.batchSize = 10  // a full first page: the next one is read ahead
        options.useCheckpoints = false  // every run starts at the first page
        for _ in 0..<10 {
            let asked = Signal(), stopped = Signal()
            let source = SilentAfterFirstPage(store.peer("a"), asked: asked, stopped: stopped)
            let replication = Replication(source: source, target: store.peer("b"), options: options,
                                          logger: Logger(label: "test"))
            let job = Task { try await WriteContext.$writer.withValue(.system) { try await replication.run() } }
            #expect(await asked.wait(upTo: .seconds(20)), "the next page was never asked for")
            while replication.progress.sourceSeq?.intValue != 10 { await Task.yield() }  // the first page recorded
            job.cancel()
            let ended = await stopped.wait(upTo: .seconds(10))
            #expect(ended, "the read-ahead went on after the job was stopped")
            guard ended else { return }  // the job never ends: the test has failed
            _ = await job.result
        }
    }
}

/// Fired once; waited on with a bound (a test fails rather than hangs).
final class Signal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Bool, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { s in
            s.fired = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    var isFired: Bool { state.withLock { $0.fired } }

    /// True once fired; false if `bound` passes first.
    func wait(upTo bound: Duration) async -> Bool {
        let timeout = Task {
            try? await Task.sleep(for: bound)
            let waiters = state.withLock { s in defer { s.waiters = [] }; return s.waiters }
            for waiter in waiters { waiter.resume(returning: false) }
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { waiter in
            let fired = state.withLock { s in
                if !s.fired { s.waiters.append(waiter) }
                return s.fired
            }
            if fired { waiter.resume(returning: true) }
        }
    }
}

/// A local peer in every way but the ones a test overrides.
class ForwardingPeer: Peer, @unchecked Sendable {
    let inner: LocalPeer
    init(_ inner: LocalPeer) { self.inner = inner }

    var displayName: String { inner.displayName }
    var inFlightKey: String? { inner.inFlightKey }
    func identity() async throws -> PeerIdentity { try await inner.identity() }
    func exists() async throws -> Bool { try await inner.exists() }
    func create(parameters: [String: String]) async throws { try await inner.create(parameters: parameters) }
    func filterCode(_ name: String) async throws -> String { try await inner.filterCode(name) }
    func changes(since: JSONValue, limit: Int, filter: ChangesFilter?, wait: Duration?) async throws -> ChangesPage {
        try await inner.changes(since: since, limit: limit, filter: filter, wait: wait)
    }
    func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        try await inner.missingRevisions(revisions)
    }
    func revisions(_ requests: [RevisionRequest]) async throws -> [TransferRevision] { try await inner.revisions(requests) }
    func write(_ revisions: [TransferRevision]) async throws -> [WriteFailure] { try await inner.write(revisions) }
    func checkpoint(id: String) async throws -> JSONObject? { try await inner.checkpoint(id: id) }
    func saveCheckpoint(id: String, _ body: JSONObject) async throws { try await inner.saveCheckpoint(id: id, body) }
}

/// A source that answers for changes after `gatedFrom` only once `gate` has fired.
final class GatedPeer: ForwardingPeer, @unchecked Sendable {
    let gate: Signal
    let gatedFrom: Int
    init(_ inner: LocalPeer, gate: Signal, gatedFrom: Int) {
        self.gate = gate
        self.gatedFrom = gatedFrom
        super.init(inner)
    }

    override func changes(since: JSONValue, limit: Int, filter: ChangesFilter?, wait: Duration?) async throws -> ChangesPage {
        if (since.intValue ?? 0) >= gatedFrom { _ = await gate.wait(upTo: .seconds(20)) }
        return try await inner.changes(since: since, limit: limit, filter: filter, wait: wait)
    }
}

/// A target that fires `onWrite` after each write and records the sequences checkpointed.
final class RecordingTarget: ForwardingPeer, @unchecked Sendable {
    let onWrite: Signal
    let saved = Mutex<[Int]>([])
    init(_ inner: LocalPeer, onWrite: Signal) {
        self.onWrite = onWrite
        super.init(inner)
    }

    override func write(_ revisions: [TransferRevision]) async throws -> [WriteFailure] {
        let failures = try await inner.write(revisions)
        onWrite.fire()
        return failures
    }

    override func saveCheckpoint(id: String, _ body: JSONObject) async throws {
        if let seq = body["source_last_seq"]?.intValue { saved.withLock { $0.append(seq) } }
        try await inner.saveCheckpoint(id: id, body)
    }
}

/// A source that gives its first page and then never answers: `asked` fires when the next
/// page is asked for, `stopped` when that request is cancelled.
final class SilentAfterFirstPage: ForwardingPeer, @unchecked Sendable {
    let asked: Signal, stopped: Signal
    init(_ inner: LocalPeer, asked: Signal, stopped: Signal) {
        self.asked = asked
        self.stopped = stopped
        super.init(inner)
    }

    override func changes(since: JSONValue, limit: Int, filter: ChangesFilter?, wait: Duration?) async throws -> ChangesPage {
        guard (since.intValue ?? 0) > 0 else { return try await inner.changes(since: since, limit: limit, filter: filter, wait: wait) }
        asked.fire()
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            stopped.fire()
            throw error
        }
        return ChangesPage(rows: [], lastSeq: since)
    }
}
