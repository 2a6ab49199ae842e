internal import FoundationEssentials
internal import SetteeHTTP
internal import SetteeJSON
internal import SetteeReplicator
internal import SetteeStore

/// `GET /_scheduler/jobs`, `/_scheduler/docs[/_replicator/{docid}]` and
/// `/_active_tasks` (CouchDB API Reference › Server), in CouchDB 3.4.3's shapes.
/// Server admins only.
enum SchedulerHandlers {
    static func jobs(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let jobs: [JSONValue] = context.node.replications.jobs.map { job in
            let status = job.status
            var entry: JSONObject = ["database": job.docID == nil ? .null : .string(ReplicationManager.databaseName)]
            entry.append("id", status.id.map { .string($0) } ?? .null)
            entry.append("pid", .string("<settee>"))
            entry.append("source", .string(display(job.replication.source)))
            entry.append("target", .string(display(job.replication.target)))
            entry.append("user", .null)
            entry.append("doc_id", job.docID.map { .string($0) } ?? .null)
            entry.append("info", info(job))
            var history: [JSONValue] = status.history.map { date, type in
                var event: JSONObject = ["timestamp": .string(iso(date)), "type": .string(type)]
                if type == "crashed", let reason = status.reason { event.append("reason", .string(reason)) }
                return .object(event)
            }
            // Failing now, while running: a crash as CouchDB's scheduler records it, newest first.
            if [.initializing, .running].contains(status.state), job.replication.progress.lastError != nil,
               let (message, at) = job.replication.progress.lastErrorSeen {
                history.insert(["timestamp": .string(iso(at)), "type": "crashed", "reason": .string(message)], at: 0)
            }
            entry.append("history", .array(history))
            entry.append("node", .string(node))
            entry.append("start_time", .string(iso(job.startTime)))
            return .object(entry)
        }
        return JSONResponse.make(status: 200, ["total_rows": .int(jobs.count), "offset": 0, "jobs": .array(jobs)])
    }

    static func docs(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let docs = context.node.replications.documentJobs.map(document)
        return JSONResponse.make(status: 200, ["total_rows": .int(docs.count), "offset": 0, "docs": .array(docs)])
    }

    static func doc(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        guard context.parameters[.db] == ReplicationManager.databaseName,
              let job = context.node.replications.documentJobs.first(where: { $0.docID == context.parameters[.docid] })
        else { throw CouchError.notFound("missing") }
        return JSONResponse.make(status: 200, document(job))
    }

    /// `_active_tasks`: one entry per running replication.
    static func activeTasks(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let tasks: [JSONValue] = context.node.replications.jobs.filter { $0.status.state == .running }.map { job in
            let progress = job.replication.progress
            var task: JSONObject = ["node": .string(node), "pid": .string("<settee>"), "process_status": "waiting"]
            task.append("changes_pending", .null)
            task.append("checkpoint_interval", .int(Int(job.spec.options.checkpointInterval / .milliseconds(1))))
            task.append("checkpointed_source_seq", progress.checkpointedSeq ?? .null)
            task.append("continuous", .bool(job.spec.options.continuous))
            task.append("database", job.docID == nil ? .null : .string(ReplicationManager.databaseName))
            task.append("doc_id", job.docID.map { .string($0) } ?? .null)
            task.append("doc_write_failures", .int(progress.stats.docWriteFailures))
            task.append("docs_read", .int(progress.stats.docsRead))
            task.append("docs_written", .int(progress.stats.docsWritten))
            task.append("missing_revisions_found", .int(progress.stats.missingFound))
            task.append("replication_id", job.status.id.map { .string($0) } ?? .null)
            task.append("revisions_checked", .int(progress.stats.missingChecked))
            task.append("source", .string(display(job.replication.source)))
            task.append("source_seq", progress.sourceSeq ?? .null)
            task.append("started_on", .int(Int(job.startTime.timeIntervalSince1970)))
            task.append("target", .string(display(job.replication.target)))
            task.append("type", "replication")
            task.append("updated_on", .int(Int(job.status.lastUpdated.timeIntervalSince1970)))
            task.append("user", .null)
            if let error = progress.lastError { task.append("last_error", .string(error)) }
            return .object(task)
        }
        let storeTasks = context.node.directory.tasks.all.map { storeTask($0, node: node) }
        return JSONResponse.make(status: 200, .array(tasks + storeTasks))
    }

    /// A compaction or index build as CouchDB lists one (`database_compaction`, `indexer`).
    private static func storeTask(_ task: StoreTasks.Task, node: String) -> JSONValue {
        var entry: JSONObject = ["changes_done": .int(task.changesDone), "database": .string(task.database)]
        if case .indexing(let label) = task.kind {
            entry.append("design_document", .string(label))
            entry.append("indexer_pid", "<settee>")
        }
        entry.append("node", .string(node))
        entry.append("pid", "<settee>")
        entry.append("process_status", "waiting")
        entry.append("progress", .int(task.progress))
        entry.append("started_on", .int(task.startedOn))
        entry.append("total_changes", .int(task.totalChanges))
        entry.append("type", task.kind == .compaction ? "database_compaction"
                     : task.kind == .conflictResolution ? "conflict_resolution" : "indexer")
        entry.append("updated_on", .int(task.updatedOn))
        // Settee's own: a task that failed stays listed with why, until the next one starts.
        if let error = task.error { entry.append("error", .string(error)) }
        return .object(entry)
    }

    /// One `_scheduler/docs` entry.
    private static func document(_ job: ReplicationJob) -> JSONValue {
        let status = job.status
        let finished = status.state == .completed || status.state == .failed
        var entry: JSONObject = ["database": .string(ReplicationManager.databaseName)]
        entry.append("doc_id", job.docID.map { .string($0) } ?? .null)
        entry.append("id", finished ? .null : status.id.map { .string($0) } ?? .null)
        if !finished { entry.append("node", .string(node)) }
        entry.append("source", .string(display(job.replication.source)))
        entry.append("target", .string(display(job.replication.target)))
        // A running job whose peer keeps failing is what CouchDB's scheduler calls crashing:
        // its job crashes and restarts with back-off, counting each time.
        let progress = job.replication.progress
        let failing = [.initializing, .running].contains(status.state) ? progress.lastError : nil
        entry.append("state", .string(failing == nil ? status.state.rawValue : "crashing"))
        if let failing {
            entry.append("info", ["error": .string(failing)])
        } else {
            entry.append("info", [.failed, .crashing, .error].contains(status.state)
                ? ["error": .string(status.reason ?? "")] : info(job))
        }
        entry.append("error_count", .int(status.errorCount + (failing == nil ? 0 : progress.failures)))
        entry.append("start_time", .string(iso(job.startTime)))
        entry.append("last_updated", .string(iso(status.lastUpdated)))
        if !finished {
            entry.append("source_proxy", .null)
            entry.append("target_proxy", .null)
        }
        return .object(entry)
    }

    /// The job's counters, as `info` carries them (null before the first batch).
    private static func info(_ job: ReplicationJob) -> JSONValue {
        let progress = job.replication.progress
        guard progress.sessionID != nil else {
            // A document finished before this server started: what it recorded.
            guard var stats = job.status.finishedStats?.objectValue else { return .null }
            stats.removeAll { $0.key == "start_time" }
            return .object(stats)
        }
        var info: JSONObject = [
            "revisions_checked": .int(progress.stats.missingChecked),
            "missing_revisions_found": .int(progress.stats.missingFound),
            "docs_read": .int(progress.stats.docsRead), "docs_written": .int(progress.stats.docsWritten),
            "changes_pending": .null, "doc_write_failures": .int(progress.stats.docWriteFailures),
            "checkpointed_source_seq": progress.checkpointedSeq ?? .null,
        ]
        // Settee's own figures, beside CouchDB's.
        let seconds = max(0.001, Date().timeIntervalSince(progress.startedAt))
        info.append("docs_per_second", .number(JSONNumber((Double(progress.stats.docsWritten) / seconds).rounded())))
        if let lag = progress.lastPageLag {
            info.append("last_page_lag_ms", .number(JSONNumber(Double(lag.components.attoseconds) / 1e15
                + Double(lag.components.seconds) * 1000)))
        }
        if let (message, at) = progress.lastErrorSeen {
            info.append("last_error", .string(message))
            info.append("last_error_time", .string(iso(at)))
        }
        return .object(info)
    }

    /// A peer as CouchDB shows endpoints: a URL without credentials, ending in `/`.
    private static func display(_ peer: any Peer) -> String {
        peer.displayName.contains("://") ? peer.displayName + "/" : peer.displayName
    }

    /// Settee is one node; CouchDB names its node `couchdb@host`.
    private static let node = NodeHandlers.nodeName

    private static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
