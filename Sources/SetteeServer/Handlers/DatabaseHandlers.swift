import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `PUT`/`GET`/`DELETE /{db}` (CouchDB API Reference › Databases › /{db}).
enum DatabaseHandlers {
    static func info(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        JSONResponse.ok(try await infoJSON(database, context: context))
    }

    static func infoJSON(_ database: Database, context: RequestContext) async throws -> JSONValue {
        let info = try await database.info()
        // Seqs are CouchDB 3-shaped strings here as in `_changes` (`SequenceToken`), so
        // `since=<update_seq>` round-trips.
        var object: JSONObject = [
            "db_name": .string(info.name),
            "purge_seq": .string(SequenceToken.string(info.purgeSeq)),
            "update_seq": .string(SequenceToken.string(info.updateSeq)),
            "sizes": ["file": .number(JSONNumber(info.fileSize)), "active": .number(JSONNumber(info.activeSize)),
                      "external": .number(JSONNumber(info.externalSize))],
            "props": [:],
            "doc_del_count": .int(info.deletedDocCount),
            "doc_count": .int(info.docCount),
            "disk_format_version": 8,
            "compact_running": .bool(info.isCompacting),
            // One node holds every copy: n (and so w and r) is 1, as CouchDB caps n at its
            // node count; q is what the database was created with.
            "cluster": ["q": .int(info.shardCount), "n": 1, "w": 1, "r": 1],
            "instance_start_time": "0",
        ]
        // Settee's own member, only on a damaged (read-only) database (`DatabaseDamage`).
        if let damage = info.damage { object["damaged"] = .string(damage) }
        return .object(object)
    }

    static func create(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let name = context.parameters.db ?? ""
        let q = try shardOption("q", context)
        _ = try shardOption("n", context)
        try partitionedOption(context)
        let database = try await create(name, directory: context.node.directory,
                                        configuration: context.node.configuration)
        if let q { try await database.setShardCount(q) }
        // The authentication database gets CouchDB's `_design/_auth` at once (clients wait for it).
        if name == context.node.live.authentication.name { try await AuthDesignDocument.ensure(in: database) }
        return JSONResponse.make(status: 201, ["ok": true], headers: ["Location": context.absoluteURL("/" + CouchURLEncoding.encode(name))])
    }

    /// `?q=` or `?n=` of a database creation: a positive integer when given
    /// (chttpd_db `parse_shards_opt`).
    private static func shardOption(_ name: String, _ context: RequestContext) throws -> Int? {
        guard let text = context.query[name] else { return nil }
        guard let value = Int(text), value > 0 else {
            throw CouchError.badRequest("The `\(name)` value should be a positive integer.")
        }
        return value
    }

    /// `?partitioned=`: Settee has no partitioned databases, and answers `true` as a
    /// CouchDB without the feature does (chttpd_db:parse_partitioned_opt/1).
    private static func partitionedOption(_ context: RequestContext) throws {
        switch context.query["partitioned"] {
        case nil, "false": return
        case "true": throw CouchError.badRequest("Partitioned feature is not enabled.")
        default: throw CouchError.badRequest("Invalid `partitioned` parameter")
        }
    }

    /// A new database with CouchDB's default `_security` (`[couchdb] default_security`).
    static func create(_ name: String, directory: DatabaseDirectory,
                       configuration: NodeConfiguration) async throws -> Database {
        let database = try await directory.create(named: name)
        if configuration.defaultSecurityIsAdminOnly {
            try await database.setSecurity(JSONWriter.serialize(SecurityObject.adminOnly))
        }
        return database
    }

    static func delete(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let name = context.parameters.db ?? ""
        if context.query.contains("rev") {
            // CouchDB refuses a doc-style delete aimed at the database itself.
            throw CouchError.badRequest(
                "You tried to DELETE a database with a ?=rev parameter. Did you mean to DELETE a document instead?")
        }
        try await context.node.directory.delete(named: name)
        return JSONResponse.ok()
    }
}
