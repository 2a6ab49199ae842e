internal import Foundation
internal import SetteeHTTP
internal import SetteeJSON
internal import SetteeReplicator

/// `POST /_replicate` (CouchDB API Reference › Server › /_replicate) and
/// `GET /_active_tasks`, with the statuses and shapes CouchDB 3.4.3 answers.
enum ReplicationHandlers {
    static func replicate(_ context: RequestContext) async throws -> HTTPResponse {
        guard context.user.name != nil else { throw CouchError.unauthorized("You are not an authenticated user") }
        try MaintenanceHandlers.requireJSONContentType(context)
        let body = try await context.jsonBody().object(orThrow: "Request body must be a JSON object")
        let request = try ReplicationRequest(body)
        let jobs = context.node.replications
        let endpoints = jobs.endpoints()
        let replication: Replication
        do {
            replication = Replication(source: try endpoints.peer(request.source, headers: request.sourceHeaders),
                                      target: try endpoints.peer(request.target, headers: request.targetHeaders),
                                      options: request.options, logger: context.logger)
        } catch let error as ReplicationError {
            throw CouchError(replication: error)
        }
        let id: String
        do {
            id = try await replication.replicationID() + request.idSuffix
        } catch let error as ReplicationError {
            throw CouchError(replication: error)
        }
        if request.cancel {
            guard jobs.cancel(id) else { throw CouchError.notFound("missing") }
            return JSONResponse.make(status: 200, ["ok": true, "_local_id": .string(id)])
        }
        if request.options.continuous {
            // CouchDB answers 202 at once, and the same for a replication already running.
            _ = jobs.start(replication, id: id, logger: context.logger)
            return JSONResponse.make(status: 202, ["ok": true, "_local_id": .string(id)])
        }
        do {
            let outcome = try await jobs.runOnce(replication, id: id)
            return JSONResponse.make(status: 200, .object(answer(outcome, request: request)))
        } catch let error as ReplicationError {
            throw CouchError(replication: error)
        }
    }

    /// One-shot: `ok`, `no_changes` when the source had nothing new, the session,
    /// the source's last seq and the checkpoint history (couch_replicator_httpd).
    private static func answer(_ outcome: Replication.Outcome, request: ReplicationRequest) -> JSONObject {
        var answer: JSONObject = ["ok": true]
        if outcome.noChanges { answer.append("no_changes", true) }
        answer.append("session_id", .string(outcome.sessionID))
        answer.append("source_last_seq", outcome.sourceLastSeq)
        answer.append("replication_id_version", .int(ReplicationID.version))
        if request.options.docIDs != nil {
            // doc_ids replications also answer the 1.0-era totals at the top level.
            answer.append("docs_read", .int(outcome.stats.docsRead))
            answer.append("docs_written", .int(outcome.stats.docsWritten))
            answer.append("doc_write_failures", .int(outcome.stats.docWriteFailures))
        }
        answer.append("history", .array(outcome.history))
        return answer
    }

    /// `GET /_active_tasks`: one entry per running replication, in CouchDB 3's shape.
    static func activeTasks(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let tasks: [JSONValue] = context.node.replications.running.map { id, job in
            let progress = job.replication.progress
            let started = Int(job.startedOn.timeIntervalSince1970)
            var task: JSONObject = [
                "type": "replication", "replication_id": .string(id), "continuous": .bool(job.continuous),
                "source": .string(job.replication.source.displayName),
                "target": .string(job.replication.target.displayName),
                "docs_read": .int(progress.stats.docsRead), "docs_written": .int(progress.stats.docsWritten),
                "doc_write_failures": .int(progress.stats.docWriteFailures),
                "missing_revisions_found": .int(progress.stats.missingFound),
                "revisions_checked": .int(progress.stats.missingChecked),
                "started_on": .int(started), "updated_on": .int(Int(Date().timeIntervalSince1970)),
            ]
            task.append("source_seq", progress.sourceSeq ?? .null)
            task.append("checkpointed_source_seq", progress.checkpointedSeq ?? .null)
            if let error = progress.lastError { task.append("last_error", .string(error)) }
            return .object(task)
        }
        return JSONResponse.make(status: 200, .array(tasks))
    }
}
