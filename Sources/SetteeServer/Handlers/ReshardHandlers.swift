import SetteeHTTP
import SetteeJSON

/// `/_reshard` (CouchDB API Reference › Server › /_reshard), answered as a single-node
/// CouchDB with no resharding jobs answers it: server admins only, a summary, a state
/// that can be stopped and started, an empty list of jobs. Settee keeps each database in
/// one file, so it has no shards to split: creating a job is 501.
enum ReshardHandlers {
    static func summary(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let current = context.node.live.reshardState.value
        return JSONResponse.ok(["state": .string(current.state), "state_reason": current.reason.map { .string($0) } ?? .null,
                                "completed": 0, "failed": 0, "running": 0, "stopped": 0, "total": 0])
    }

    static func state(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let current = context.node.live.reshardState.value
        return JSONResponse.ok(["state": .string(current.state), "reason": current.reason.map { .string($0) } ?? .null])
    }

    /// `PUT /_reshard/state` with `{"state": "stopped"|"running", "reason": ...}`.
    static func setState(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        try MaintenanceHandlers.requireJSONContentType(context)
        let body = try await context.jsonBody(checkingContentType: false).object()
        guard let state = body["state"]?.stringValue, ["running", "stopped"].contains(state) else {
            throw CouchError.badRequest("State field not `running` or `stopped`")
        }
        let reason = body["reason"]?.stringValue
            ?? (state == "stopped" ? "Cluster-wide resharding stopped by the user" : nil)
        context.node.live.reshardState.set((state: state, reason: state == "running" ? nil : reason))
        return JSONResponse.ok(["ok": true])
    }

    static func jobs(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        return JSONResponse.ok(["total_rows": 0, "offset": 0, "jobs": []])
    }

    static func createJobs(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        throw CouchError(501, "not_implemented", "Settee keeps each database in one file: it has no shards to split.")
    }

    /// A job by id: there are none.
    static func job(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        throw CouchError.notFound("missing")
    }
}
