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
    private let logger: Logger
    private let state = Mutex(Progress())

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
        var seq: JSONValue = options.sinceSeq.map(Self.sequence) ?? checkpointer.startSeq
        state.withLock {
            $0.replicationID = id
            $0.sessionID = checkpointer.sessionID
            $0.sourceSeq = seq
        }
        logger.info("replicating \(source.displayName) → \(target.displayName) from \(seq)",
                    metadata: ["replication": "\(id)"])
        var caughtUp = false
        let clock = ContinuousClock()
        var lastCheckpoint = clock.now
        var uncheckpointed = false
        /// How long the next longpoll may wait: the poll timeout, or less when written
        /// changes await their checkpoint, so that a job that goes quiet (or is stopped)
        /// still records them within `checkpointInterval` (CouchDB checkpoints on a timer too).
        func longpollWait(since last: ContinuousClock.Instant, _ clock: ContinuousClock) -> Duration {
            guard uncheckpointed, options.useCheckpoints else { return options.pollTimeout }
            return max(.milliseconds(50), min(options.pollTimeout, options.checkpointInterval - (clock.now - last)))
        }
        // The next page is read while this one is copied: the source is otherwise idle
        // while the target diffs and writes. `seq` is where reading goes on from;
        // `writtenSeq` is the last page written with all before it, the only one checkpointed.
        var readAhead: Task<ChangesPage, any Error>?
        defer { readAhead?.cancel() }
        var writtenSeq = seq
        var savedSeq: JSONValue?
        try await withThrowingTaskGroup(of: Int.self) { chunkTasks in
            var pages = PagesInFlight()
            var running = 0
            /// Records the pages now written in order: progress, lag, what to checkpoint.
            func recordWritten() {
                guard let (lastSeq, readAt) = pages.popWritten() else { return }
                writtenSeq = lastSeq
                state.withLock {
                    $0.sourceSeq = lastSeq
                    if let readAt { $0.lastPageLag = clock.now - readAt }
                }
            }
            /// Waits for one chunk to be written.
            func settleOne() async throws {
                guard let number = try await chunkTasks.next() else { return }
                running -= 1
                pages.chunkWritten(of: number)
                recordWritten()
            }
            while true {
                try Task.checkCancellation()
                let page: ChangesPage
                if let ahead = readAhead {
                    readAhead = nil
                    page = try await ahead.value
                } else {
                    page = try await nextPage(after: seq, wait: caughtUp ? longpollWait(since: lastCheckpoint, clock) : nil)
                }
                let read = clock.now
                // A page shorter than asked for was the end of the feed when read: no read-ahead,
                // and next the longpoll (continuous) or the end (one-shot).
                let isFull = page.rows.count >= options.batchSize
                if isFull {
                    let next = page.lastSeq
                    readAhead = Task { try await self.nextPage(after: next, wait: nil) }
                }
                seq = page.lastSeq
                let chunks = page.rows.isEmpty ? [] : try await retrying { try await self.missingChunks(page.rows) }
                let number = pages.add(lastSeq: page.lastSeq, chunks: chunks.count, readAt: page.rows.isEmpty ? nil : read)
                for chunk in chunks {
                    while running >= max(1, options.workers) { try await settleOne() }
                    chunkTasks.addTask { try await self.retrying { try await self.copy(chunk) }; return number }
                    running += 1
                }
                recordWritten()  // a page with nothing to copy, behind none still copying
                if !page.rows.isEmpty { uncheckpointed = true }
                // At the feed's end everything lands before the longpoll or the end; while
                // full pages flow, at most `workers` of them wait for their chunks.
                while running > 0 && (!isFull || pages.count > max(1, options.workers)) { try await settleOne() }
                let isEnd = !isFull && !options.continuous
                // Continuous jobs checkpoint on the interval, and when an idle longpoll ends
                // with nothing (not after every small page: that would delay the next change).
                if options.useCheckpoints && (isEnd || page.rows.isEmpty
                    || (clock.now - lastCheckpoint >= options.checkpointInterval && savedSeq != writtenSeq)) {
                    let stats = progress.stats
                    let checkpointSeq = writtenSeq
                    try await retrying { try await checkpointer.save(checkpointSeq, stats: stats) }
                    lastCheckpoint = clock.now
                    uncheckpointed = checkpointSeq != seq
                    savedSeq = checkpointSeq
                    state.withLock { $0.checkpointedSeq = checkpointSeq }
                }
                if isEnd { break }
                if !isFull {
                    caughtUp = true
                    state.withLock { $0.caughtUp = true }
                }
            }
        }
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

    /// One page of the source's changes after `since` (a longpoll when `wait` is given).
    private func nextPage(after since: JSONValue, wait: Duration?) async throws -> ChangesPage {
        try await retrying {
            try await self.source.changes(since: since, limit: self.options.batchSize, filter: self.options.filter,
                                          wait: wait)
        }
    }

    /// Both databases must exist; the target is created when asked.
    private func preparePeers() async throws {
        guard try await retrying({ try await self.source.exists() }) else {
            throw ReplicationError.databaseNotFound(source.displayName)
        }
        if try await retrying({ try await self.target.exists() }) { return }
        guard options.createTarget else { throw ReplicationError.databaseNotFound(target.displayName) }
        try await retrying { try await self.target.create(parameters: self.options.createTargetParameters) }
    }

    /// What of one page the target lacks (`_revs_diff`), in chunks to fetch and write.
    private func missingChunks(_ rows: [ChangeRow]) async throws -> [[RevisionRequest]] {
        var wanted: [String: [String]] = [:]
        for row in rows { wanted[row.id, default: []].append(contentsOf: row.revisions) }
        let missing = try await target.missingRevisions(wanted)
        let requests = missing.sorted { $0.key < $1.key }.flatMap { id, diff in
            diff.missing.map { RevisionRequest(id: id, rev: $0, attsSince: diff.possibleAncestors) }
        }
        state.withLock {
            $0.stats.missingChecked += wanted.values.reduce(0) { $0 + $1.count }
            $0.stats.missingFound += requests.count
        }
        return stride(from: 0, to: requests.count, by: Self.chunkSize).map {
            Array(requests[$0..<min($0 + Self.chunkSize, requests.count)])
        }
    }

    /// Revisions per `_bulk_get` and `_bulk_docs`; `options.workers` of them are in flight at
    /// once, across pages. 250 rather than 100: each request has its fixed cost on both
    /// sides (an HTTP exchange, a task, a commit), and 20,000 small documents cost the
    /// server 0.47 s of CPU in chunks of 250 against 0.63 s in chunks of 100; 500 measured
    /// no better (bench/RESULTS.md, "Replication at 15× CouchDB"). CouchDB's own
    /// `worker_batch_size` is 500.
    static let chunkSize = 250

    /// Copies `requests`, sharing them with other replications into the same database of this
    /// process (`RevisionsInFlight`); ends once every one is in the target, by whichever copy.
    private func copy(_ requests: [RevisionRequest]) async throws {
        guard let key = target.inFlightKey else { return try await copyClaimed(requests) }
        let inFlight = RevisionsInFlight.shared
        var pending = requests
        while !pending.isEmpty {
            let claim = RevisionsInFlight.Claim()
            let (mine, theirs) = inFlight.claim(pending, into: key, for: claim)
            do {
                if !mine.isEmpty { try await copyClaimed(mine) }
            } catch {
                inFlight.release(mine, in: key, by: claim)
                throw error
            }
            inFlight.release(mine, in: key, by: claim)
            guard !theirs.isEmpty else { return }
            var waited = Set<ObjectIdentifier>()
            for (_, other) in theirs where waited.insert(ObjectIdentifier(other)).inserted { await other.wait() }
            // Written by the other copies, unless one failed: what is still missing is copied here.
            var wanted: [String: [String]] = [:]
            for (request, _) in theirs { wanted[request.id, default: []].append(request.rev) }
            let missing = try await target.missingRevisions(wanted)
            pending = theirs.map(\.0).filter { missing[$0.id]?.missing.contains($0.rev) == true }
        }
    }

    private func copyClaimed(_ requests: [RevisionRequest]) async throws {
        let revisions = try await source.revisions(requests)
        let refused = try await target.write(revisions)
        // A stub the target cannot resolve (its ancestor was compacted or purged):
        // send those documents again with every attachment, as CouchDB's replicator does.
        let stubbed = Set(refused.filter { $0.error == "missing_stub" }.map(\.id))
        var failures = refused.filter { $0.error != "missing_stub" }
        var read = revisions.count
        var written = revisions.count - refused.count
        var (attempts, fetched) = (requests.count, revisions.count)
        if !stubbed.isEmpty {
            let full = try await source.revisions(requests.filter { stubbed.contains($0.id) }.map {
                RevisionRequest(id: $0.id, rev: $0.rev, attsSince: [])
            })
            let refusedAgain = try await target.write(full)
            read += full.count
            written += full.count - refusedAgain.count
            attempts += stubbed.count
            fetched += full.count
            failures += refusedAgain
        }
        for failure in failures {
            logger.warning("\(target.displayName) refused \(failure.id) \(failure.rev ?? ""): \(failure.error) \(failure.reason)")
        }
        state.withLock { [read, written, failures, attempts, fetched] in
            $0.stats.bulkGetAttempts += attempts
            $0.stats.bulkGetDocs += fetched
            $0.stats.docsRead += read
            $0.stats.docsWritten += written
            $0.stats.docWriteFailures += failures.count
        }
    }

    /// Runs `step`, retrying transient failures with back-off: a few times for a
    /// one-shot replication, until cancelled for a continuous one.
    private func retrying<T: Sendable>(_ step: () async throws -> T) async throws -> T {
        var backoff = Backoff()
        var attempt = 0
        var previous: String?
        while true {
            do {
                let value = try await step()
                state.withLock {
                    $0.lastError = nil
                    $0.failures = 0
                    $0.lastAnswer = Date()
                }
                return value
            } catch let error as ReplicationError where error.isTransient {
                attempt += 1
                state.withLock { [attempt] in
                    $0.lastError = error.description
                    $0.lastErrorSeen = (error.description, Date())
                    $0.failures = attempt
                }
                if !options.continuous && attempt > options.retries { throw error }
                // A peer that stays down (or answers 500) fails the same way each retry: one
                // warning for a run of the same failure, the retries at debug.
                let message: Logger.Message = "replication step failed (\(error)); retrying"
                if attempt == 1 || error.description != previous { logger.warning(message) } else { logger.debug(message) }
                previous = error.description
                try await backoff.wait()
            }
        }
    }

    /// `since_seq` as given: a number when it is one, else the opaque string.
    static func sequence(_ text: String) -> JSONValue {
        if let n = Int64(text) { return .number(JSONNumber(n)) }
        return .string(text)
    }
}
