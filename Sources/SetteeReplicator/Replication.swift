public import FoundationEssentials
public import Logging
public import SetteeJSON
internal import Synchronization

/*
 Replication: one job, one loop (CouchDB Replication Protocol, "Replicate Changes").

   verify peers → replication id → read checkpoints (both) → start seq
     └─► changes page ─► _revs_diff ─► fetch (chunks in parallel) ─► write (new_edits:false)
            ▲                                                               │
            └──────────────── checkpoint lastSeq on both peers ◄────────────┘
   one-shot: ends after the first page shorter than asked for (the feed's end when read);
   continuous: then longpolls, and goes on until cancelled.

 A page is written completely before its lastSeq is checkpointed, so the
 checkpoint never passes a change that was not written. A transient failure
 (network, 5xx, a revision in flux) retries the step with back-off; anything
 else ends the job with its cause.
 */

/// One replication from `source` to `target`.
public final class Replication: Sendable {
    public let source: any Peer
    public let target: any Peer
    public let options: ReplicationOptions
    let logger: Logger
    let state = Mutex(Progress())

    /// What the job has done so far, for `_active_tasks`, the CLI and `_replicate`.
    public struct Progress: Sendable {
        public var replicationID: String?
        public var sessionID: String?
        public var stats = ReplicationStats()
        public var sourceSeq: JSONValue?
        /// The sequence the last checkpoint recorded.
        public var checkpointedSeq: JSONValue?
        /// Set while the job waits to retry: the cause.
        public var lastError: String?
        /// Attempts failed in a row so far (0 once one succeeds): CouchDB's scheduler counts
        /// each as a crash of the job.
        public var failures = 0
        /// The last error the job met (kept after it recovered), and when.
        public var lastErrorSeen: (message: String, at: Date)?
        /// From reading the last copied page of changes to the target having it all:
        /// how far behind the source the target ran then.
        public var lastPageLag: Duration?
        public let startedAt = Date()
        /// Caught up with the source at least once.
        public var caughtUp = false
        /// When a step last succeeded (both peers answered): a continuous job's longpoll
        /// returns every `pollTimeout` at least, so an older one means a peer went quiet.
        public var lastAnswer: Date?
    }

    /// A finished one-shot replication, in `_replicate`'s terms.
    public struct Outcome: Sendable {
        public let replicationID: String
        public let sessionID: String
        public let sourceLastSeq: JSONValue
        public let stats: ReplicationStats
        /// True when the source had nothing the target lacked.
        public let noChanges: Bool
        /// The checkpoint's session history, newest first (empty without checkpoints).
        public let history: [JSONValue]
    }

    public init(source: any Peer, target: any Peer, options: ReplicationOptions, logger: Logger) {
        self.source = source
        self.target = target
        self.options = options
        self.logger = logger
    }

    public var progress: Progress { state.withLock { $0 } }

    /// Runs the replication: until caught up (one-shot), or until the task is cancelled (continuous).
    public func run() async throws -> Outcome {
        try await preparePeers()
        let id = try await replicationID()
        var checkpointer = Checkpointer(source: source, target: target, id: id)
        if options.useCheckpoints { try await retrying { try await checkpointer.load() } }
        let seq: JSONValue = options.sinceSeq.map(Self.sequence) ?? checkpointer.startSeq
        state.withLock {
            $0.replicationID = id
            $0.sessionID = checkpointer.sessionID
            $0.sourceSeq = seq
        }
        logger.info("replicating \(source.displayName) → \(target.displayName) from \(seq)",
                    metadata: ["replication": "\(id)"])
        let writtenSeq = try await copyChanges(from: seq, checkpointer: &checkpointer)
        let stats = progress.stats
        return Outcome(replicationID: id, sessionID: checkpointer.sessionID, sourceLastSeq: writtenSeq, stats: stats,
                       noChanges: stats.missingChecked == 0, history: checkpointer.history)
    }

    /// The id checkpoints are kept under: asks each peer who it is.
    public func replicationID() async throws -> String {
        var filterCode: String?
        if let name = options.filterFunction {
            filterCode = try await retrying { try await self.source.filterCode(name) }
        }
        return ReplicationID.make(source: try await retrying { try await self.source.identity() },
                                  target: try await retrying { try await self.target.identity() }, options: options,
                                  filterCode: filterCode)
    }

    /// `since_seq` as given: a number when it is one, else the opaque string.
    static func sequence(_ text: String) -> JSONValue {
        if let n = Int64(text) { return .number(JSONNumber(n)) }
        return .string(text)
    }
}
