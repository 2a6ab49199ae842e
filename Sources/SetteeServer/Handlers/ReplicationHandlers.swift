internal import FoundationEssentials
internal import SetteeHTTP
internal import SetteeJSON
internal import SetteeReplicator

/// `POST /_replicate` (CouchDB API Reference › Server › /_replicate), with the
/// statuses and shapes CouchDB 3.4.3 answers.
enum ReplicationHandlers {
    static func replicate(_ context: RequestContext) async throws -> HTTPResponse {
        guard context.user.name != nil else { throw CouchError.unauthorized("You are not an authenticated user") }
        try MaintenanceHandlers.requireJSONContentType(context)
        let body = try await context.jsonBody().object(orThrow: "Request body must be a JSON object")
        let manager = context.node.replications
        let spec: ReplicationSpec
        do {
            spec = try ReplicationSpec(body)
        } catch ReplicationError.missingEndpoint {
            // What CouchDB 3.4.3 answers when `source` or `target` is missing.
            throw CouchError(500, "error", "Missing replicator database")
        }
        // A database named without a URL is opened here with no credentials checked:
        // only server admins may name one (others replicate through URLs, which log in).
        if !context.user.isAdmin, [spec.source, spec.target].contains(where: { !$0.contains("://") }) {
            throw CouchError(403, "forbidden", "Only server admins may replicate databases named without a URL.")
        }
        // A `file://` endpoint (sneakernet) opens a directory of this machine: admins only.
        let replication = try manager.makeReplication(spec, allowingFiles: context.user.isAdmin)
        let id = try await replication.replicationID() + spec.idSuffix
        if spec.cancel {
            guard manager.cancel(id: id) else { throw CouchError.notFound("missing") }
            return JSONResponse.make(status: 200, ["ok": true, "_local_id": .string(id)])
        }
        if spec.options.continuous {
            // CouchDB answers 202 at once, and the same for a replication already running.
            manager.startContinuous(replication, spec: spec, id: id)
            return JSONResponse.make(status: 202, ["ok": true, "_local_id": .string(id)])
        }
        let outcome = try await manager.runOnce(replication, spec: spec, id: id)
        return JSONResponse.make(status: 200, .object(answer(outcome, spec: spec)))
    }

    /// One-shot: `ok`, `no_changes` when the source had nothing new, the session,
    /// the source's last seq and the checkpoint history (couch_replicator_httpd).
    private static func answer(_ outcome: Replication.Outcome, spec: ReplicationSpec) -> JSONObject {
        var answer: JSONObject = ["ok": true]
        if outcome.noChanges { answer.append("no_changes", true) }
        answer.append("session_id", .string(outcome.sessionID))
        answer.append("source_last_seq", outcome.sourceLastSeq)
        answer.append("replication_id_version", .int(ReplicationID.version))
        if spec.options.docIDs != nil {
            // doc_ids replications also answer their session's times and the 1.0-era totals
            // at the top level (couch_replicator_httpd, 3.4.3).
            let session = outcome.history.first
            for key in ["start_time", "end_time"] { if let time = session?[key] { answer.append(key, time) } }
            answer.append("docs_read", .int(outcome.stats.docsRead))
            answer.append("docs_written", .int(outcome.stats.docsWritten))
            answer.append("doc_write_failures", .int(outcome.stats.docWriteFailures))
        }
        answer.append("history", .array(outcome.history))
        return answer
    }
}
