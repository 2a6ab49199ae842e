internal import FoundationEssentials
public import Logging
internal import SetteeJSON
public import SetteeStore
internal import Synchronization

/*
 ReplicationManager: every replication a server runs.

 - `_replicate` jobs: one-shot ones while they run, continuous ones until cancelled.
 - `_replicator` documents: a watcher follows that database's changes (from the
   start on every server start, so persistent replications survive a restart) and
   keeps one job per document: started when a document appears, restarted when its
   replication fields change, stopped when it is deleted. As CouchDB 3 does, only the
   end states are written back to the document (`completed` with
   `_replication_stats`, `failed` with `_replication_state_reason`); running,
   crashing and pending live in memory and in `_scheduler`. A crashed job is retried
   with back-off (5 s doubling, at most 5 min) until its document changes.
 */
public final class ReplicationManager: Sendable {
    public static let databaseName = "_replicator"

    private let directory: DatabaseDirectory
    private let serverUUID: String
    private let maxDocumentSize: Int
    private let logger: Logger
    private let filters: (any FilterFunctionRunner)?
    /// `_replicate` jobs by id, `_replicator` jobs by document id; finished documents' last status.
    private let state = Mutex(Jobs())
    private let watcher = Mutex<Task<Void, Never>?>(nil)

    struct Jobs {
        var transient: [String: ReplicationJob] = [:]
        var documents: [String: ReplicationJob] = [:]
    }

    public init(directory: DatabaseDirectory, serverUUID: String, maxDocumentSize: Int, logger: Logger,
                filters: (any FilterFunctionRunner)? = nil) {
        self.directory = directory
        self.serverUUID = serverUUID
        self.maxDocumentSize = maxDocumentSize
        self.logger = logger
        self.filters = filters
    }

    /// Peers for a spec. Each job gets its own HTTP client: a continuous one keeps a
    /// longpoll open on one of its connections, which must not hold up another job.
    /// `allowingFiles`: `file://` endpoints too (a server admin's `_replicate` only).
    public func endpoints(allowingFiles: Bool = false) -> PeerEndpoints {
        PeerEndpoints(directory: directory, serverUUID: serverUUID, session: CurlSession(maxConnections: CurlSession.connectionsPerReplication),
                      maxDocumentSize: maxDocumentSize, filters: filters, allowsFiles: allowingFiles)
    }

    public func makeReplication(_ spec: ReplicationSpec, allowingFiles: Bool = false) throws -> Replication {
        let (source, target) = try spec.peers(endpoints(allowingFiles: allowingFiles))
        return Replication(source: source, target: target, options: spec.options, logger: logger)
    }

    // MARK: _replicate

    /// Runs a one-shot replication, listed while it runs.
    public func runOnce(_ replication: Replication, spec: ReplicationSpec, id: String) async throws -> Replication.Outcome {
        let job = ReplicationJob(spec: spec, docID: nil, replication: replication)
        job.update { $0.id = id }
        job.record("started", .running)
        state.withLock { $0.transient[id] = job }
        defer { state.withLock { $0.transient[id] = nil } }
        // Asked for by a server admin (`_replicate`): its local writes are the node's own.
        return try await WriteContext.$writer.withValue(.system) { try await replication.run() }
    }

    /// Starts a continuous replication under `id`, unless one runs there already.
    public func startContinuous(_ replication: Replication, spec: ReplicationSpec, id: String) {
        let job = ReplicationJob(spec: spec, docID: nil, replication: replication)
        job.update { $0.id = id }
        let isNew = state.withLock { jobs in
            guard jobs.transient[id] == nil else { return false }
            jobs.transient[id] = job
            return true
        }
        guard isNew else { return }
        job.attach(Task {
            await WriteContext.$writer.withValue(.system) { await self.runUntilCancelled(job, writeBack: nil) }
        })
    }

    /// Stops the `_replicate` job `id`; false when there is none.
    public func cancel(id: String) -> Bool {
        guard let job = state.withLock({ $0.transient.removeValue(forKey: id) }) else { return false }
        job.cancel()
        return true
    }

    // MARK: _replicator

    /// Starts following the `_replicator` database (and waits for it to be created).
    public func start() {
        // `_replicator` jobs, and their state updates, write as the node itself (the documents'
        // owners were checked when they were written: `ReplicatorDocumentPolicy`).
        watcher.withLock { $0 = Task { await WriteContext.$writer.withValue(.system) { await self.watch() } } }
    }

    /// Stops every job and the watcher (server shutdown).
    public func stop() async {
        watcher.withLock { $0 }?.cancel()
        let all = state.withLock { jobs in
            defer { jobs = Jobs() }
            return Array(jobs.transient.values) + Array(jobs.documents.values)
        }
        for job in all { job.cancel() }
        for job in all { await job.finished() }
    }

    /// Jobs that are not finished: `_scheduler/jobs` and `_active_tasks`.
    public var jobs: [ReplicationJob] {
        let jobs = state.withLock { Array($0.transient.values) + Array($0.documents.values) }
        return jobs.filter { ![.completed, .failed].contains($0.status.state) }
            .sorted { ($0.status.id ?? "") < ($1.status.id ?? "") }
    }

    /// Every `_replicator` document's job, finished ones too: `_scheduler/docs`.
    public var documentJobs: [ReplicationJob] {
        state.withLock { Array($0.documents.values) }.sorted { ($0.docID ?? "") < ($1.docID ?? "") }
    }

    private func watch() async {
        var watched: Database?
        var since: Int64 = 0
        while !Task.isCancelled {
            guard let database = try? directory.database(named: Self.databaseName) else {
                stopDocumentJobs()
                watched = nil
                _ = await directory.updates.wait(after: directory.updates.sequence, timeout: .seconds(5))
                continue
            }
            if watched !== database {
                // A new (or recreated) _replicator: every document from the start.
                stopDocumentJobs()
                watched = database
                since = 0
            }
            do {
                let changes = try await database.changes(since: since, limit: 100, descending: false)
                for change in changes {
                    await handle(change, in: database)
                    since = change.sequence
                }
                if changes.isEmpty { _ = await database.changesNotifier.wait(after: since, timeout: .seconds(5)) }
            } catch {
                logger.error("reading \(Self.databaseName) failed: \(error)")
                _ = await database.changesNotifier.wait(after: since, timeout: .seconds(5))
            }
        }
    }

    private func stopDocumentJobs() {
        let jobs = state.withLock { jobs in
            defer { jobs.documents = [:] }
            return Array(jobs.documents.values)
        }
        for job in jobs { job.cancel() }
    }

    /// One changed `_replicator` document.
    private func handle(_ change: Change, in database: Database) async {
        let id = change.id
        guard !id.hasPrefix("_design/") else { return }
        let existing = state.withLock { $0.documents[id] }
        guard !change.isDeleted, let stored = try? await database.winner(id: id), let bytes = stored.body,
              let body = (try? JSONReader.parse(bytes))?.objectValue else {
            existing?.cancel()
            state.withLock { $0.documents[id] = nil }
            return
        }
        let spec: ReplicationSpec
        do {
            spec = try ReplicationSpec(body)
        } catch {
            // An invalid document is marked failed; the other replications go on.
            existing?.cancel()
            let reason = (error as? ReplicationError)?.description ?? "\(error)"
            if body["_replication_state"]?.stringValue != "failed" {
                await writeState(id, in: database, state: "failed", extra: ["_replication_state_reason": .string(reason)])
            }
            recordFinished(id, spec: nil, state: .failed, reason: reason)
            return
        }
        // Our own write of the end state, or a change to fields that do not matter.
        if let existing, existing.spec == spec { return }
        existing?.cancel()
        switch body["_replication_state"]?.stringValue {
        case "completed":
            recordFinished(id, spec: spec, state: .completed, reason: nil, stats: body["_replication_stats"])
            return
        case "failed":
            recordFinished(id, spec: spec, state: .failed, reason: body["_replication_state_reason"]?.stringValue)
            return
        default: break
        }
        let replication: Replication
        do {
            replication = try makeReplication(spec)
        } catch {
            let reason = (error as? ReplicationError)?.description ?? "\(error)"
            await writeState(id, in: database, state: "failed", extra: ["_replication_state_reason": .string(reason)])
            recordFinished(id, spec: spec, state: .failed, reason: reason)
            return
        }
        let job = ReplicationJob(spec: spec, docID: id, replication: replication)
        state.withLock { $0.documents[id] = job }
        job.attach(Task {
            await self.runUntilCancelled(job) { outcome in
                let stats: JSONObject = [
                    "revisions_checked": .int(outcome.stats.missingChecked),
                    "missing_revisions_found": .int(outcome.stats.missingFound),
                    "docs_read": .int(outcome.stats.docsRead), "docs_written": .int(outcome.stats.docsWritten),
                    "changes_pending": .null, "doc_write_failures": .int(outcome.stats.docWriteFailures),
                    "checkpointed_source_seq": outcome.sourceLastSeq,
                    "start_time": .string(Self.isoDate(job.startTime)),
                ]
                await self.writeState(id, in: database, state: "completed", extra: ["_replication_stats": .object(stats)])
            }
        })
    }

    /// A document whose replication is over (or never started): kept for `_scheduler/docs`.
    private func recordFinished(_ id: String, spec: ReplicationSpec?, state jobState: JobState, reason: String?,
                                stats: JSONValue? = nil) {
        guard let spec, let replication = try? makeReplication(spec) else {
            state.withLock { $0.documents[id] = nil }
            return
        }
        let job = ReplicationJob(spec: spec, docID: id, replication: replication)
        job.update { $0.finishedStats = stats }
        job.record(jobState.rawValue, jobState, reason: reason)
        state.withLock { $0.documents[id] = job }
    }

    /// Runs `job` until it ends or is cancelled, retrying crashes with back-off.
    /// A one-shot job's outcome goes to `writeBack` (the document's `completed` state).
    private func runUntilCancelled(_ job: ReplicationJob,
                                   writeBack: (@Sendable (Replication.Outcome) async -> Void)?) async {
        var backoff = Backoff(first: .seconds(5), cap: .seconds(300))
        // A peer that stays down fails the same way every retry: warn once per reason.
        var lastReason: String?
        while !Task.isCancelled {
            do {
                if job.status.id == nil {
                    let id = try await job.replication.replicationID() + job.spec.idSuffix
                    job.update { $0.id = id }
                }
                job.record("started", .running)
                let outcome = try await job.replication.run()
                job.record("completed", .completed)
                await writeBack?(outcome)
                return
            } catch is CancellationError {
                return
            } catch ReplicationError.cancelled {
                return
            } catch {
                let reason = (error as? ReplicationError)?.description ?? "\(error)"
                let message: Logger.Message = "replication \(job.docID ?? job.status.id ?? "") crashed: \(reason)"
                if reason == lastReason { logger.debug(message) } else { logger.warning(message) }
                lastReason = reason
                job.update { $0.errorCount += 1 }
                // No id yet (a filter function not fetched): CouchDB's `error` state, retried the same way.
                if job.status.id == nil {
                    job.record("error", .error, reason: reason)
                } else {
                    job.record("crashed", .crashing, reason: reason)
                }
                do { try await backoff.wait() } catch { return }
                job.record("pending", .pending, reason: reason)
            }
        }
    }

    /// Writes an end state into document `id` (a conflict means someone edited it: their edit wins).
    private func writeState(_ id: String, in database: Database, state: String, extra: JSONObject) async {
        guard let stored = try? await database.winner(id: id), let bytes = stored.body,
              var body = (try? JSONReader.parse(bytes))?.objectValue else { return }
        body.removeAll { $0.key.hasPrefix("_replication_") }
        body.append("_replication_state", .string(state))
        body.append("_replication_state_time", .string(Self.isoDate(Date())))
        for member in extra { body.append(member.key, member.value) }
        let update = DocumentUpdate(id: id, body: JSONWriter.serialize(.object(body)), baseRevision: stored.rev)
        _ = try? await WriteContext.$writer.withValue(.system) { try await database.update([update], newEdits: true) }
    }

    static func isoDate(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
