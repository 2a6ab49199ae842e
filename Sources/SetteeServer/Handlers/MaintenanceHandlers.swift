import Logging
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `_revs_limit`, `_compact`, `_ensure_full_commit`, `_security`
/// (CouchDB API Reference › Databases › Database Maintenance, Security).
enum MaintenanceHandlers {
    static func getRevsLimit(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        JSONResponse.ok(.int(try await database.revsLimit()))
    }

    static func putRevsLimit(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        let limit = try await context.positiveIntegerBody(orThrow: "`revs_limit` must be a positive integer.")
        try await database.setRevsLimit(limit)
        return JSONResponse.ok()
    }

    /// CouchDB insists on a JSON content type here (415 otherwise) and answers 202.
    static func compact(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        // CouchDB says 401 here, with the words in this order.
        guard context.isDatabaseAdmin else { throw CouchError.unauthorized("You are not a server or db admin.") }
        try requireJSONContentType(context)
        let logger = context.logger, name = database.name
        try await database.startCompaction { error in logger.error("compaction of \(name) failed: \(error)") }
        return JSONResponse.make(status: 202, ["ok": true])
    }

    /// Every write is already committed when answered; CouchDB's replicator still
    /// calls this before each checkpoint and compares `instance_start_time` with `GET /{db}`.
    static func ensureFullCommit(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        JSONResponse.make(status: 201, ["ok": true, "instance_start_time": "0"])
    }

    static func getSecurity(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        JSONResponse.make(status: 200, bytes: try await database.security() + [0x0A])
    }

    static func putSecurity(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try context.requireDatabaseAdmin()
        // Only the configured one (chttpd_db:validate_security_can_be_edited/1).
        if database.name == context.node.live.authentication.name
            && !context.node.configuration.usersDatabaseSecurityEditable {
            throw CouchError(403, "forbidden", "You can't edit the security object of the user database.")
        }
        let body = try await context.jsonBody()
        let object = try body.object()
        // CouchDB 3.4.3 answers these with 500 `no_majority` (its shards refuse); 400 names the fault.
        if let refusal = SecurityObject.refusal(object) { throw CouchError.badRequest(refusal) }
        try await database.setSecurity(JSONWriter.serialize(.object(object)))
        return JSONResponse.ok()
    }

    static func requireJSONContentType(_ context: RequestContext) throws {
        let type = context.headers["Content-Type"] ?? ""
        guard type.lowercased().hasPrefix("application/json") else {
            throw CouchError(415, "bad_content_type", "Content-Type must be application/json")
        }
    }
}
