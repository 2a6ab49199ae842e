public import FoundationEssentials
public import SetteeJSON
internal import Synchronization

/// CouchDB 3's scheduler states (`_scheduler/docs`, `_scheduler/jobs`).
public enum JobState: String, Sendable {
    case initializing, running, pending, crashing, completed, failed, error
}

/// A replication the manager runs: from a `_replicator` document or a `_replicate` request.
public final class ReplicationJob: Sendable {
    public let spec: ReplicationSpec
    /// The `_replicator` document, or nil for a `_replicate` job.
    public let docID: String?
    public let replication: Replication
    public let startTime = Date()
    private let state = Mutex(Status())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// What `_scheduler` shows.
    public struct Status: Sendable {
        public var id: String?
        public var state: JobState = .initializing
        public var reason: String?
        public var errorCount = 0
        public var lastUpdated = Date()
        /// A finished document's counters as its `_replication_stats` recorded them.
        public var finishedStats: JSONValue?
        /// `{timestamp, type}` events, newest first, as `_scheduler/jobs` lists them.
        public var history: [(Date, String)] = [(Date(), "added")]
    }

    init(spec: ReplicationSpec, docID: String?, replication: Replication) {
        self.spec = spec
        self.docID = docID
        self.replication = replication
    }

    public var status: Status { state.withLock { $0 } }

    func update(_ change: (inout Status) -> Void) {
        state.withLock {
            change(&$0)
            $0.lastUpdated = Date()
        }
    }

    func record(_ event: String, _ newState: JobState, reason: String? = nil) {
        update {
            $0.state = newState
            $0.reason = reason
            $0.history.insert((Date(), event), at: 0)
            if $0.history.count > 20 { $0.history.removeLast() }
        }
    }

    func attach(_ running: Task<Void, Never>) { task.withLock { $0 = running } }

    func cancel() { task.withLock { $0 }?.cancel() }

    /// Waits until the job's task ends (after `cancel`, or a one-shot's end).
    func finished() async { await task.withLock { $0 }?.value }
}
