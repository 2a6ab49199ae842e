import SetteeHTTP
import SetteeStore

/// THE route table, top to bottom: the first pattern that matches a path wins,
/// so literal `_` endpoints stand above `{docid}`. (As CouchDB's
/// `chttpd_httpd_handlers.erl` and LiteCore's `RESTListener.cc`.)
enum Routes {
    static let table: [Route] = [
        Route([], ["GET": ServerHandlers.welcome]),
        Route([.literal("_up")], ["GET": ServerHandlers.up]),
        Route([.literal("_uuids")], ["GET": ServerHandlers.uuids]),
        Route([.literal("_all_dbs")], ["GET": ServerHandlers.allDatabases]),
        Route([.literal("_dbs_info")], ["GET": ServerHandlers.databasesInfoList, "POST": ServerHandlers.databasesInfo]),
        Route([.literal("_db_updates")], ["GET": DatabaseUpdatesHandlers.feed, "POST": DatabaseUpdatesHandlers.feed]),
        Route([.literal("_session")], [
            "GET": SessionHandlers.get, "POST": SessionHandlers.post, "DELETE": SessionHandlers.delete,
        ]),

        Route([.db], [
            "GET": db(DatabaseHandlers.info), "PUT": DatabaseHandlers.create,
            "DELETE": DatabaseHandlers.delete, "POST": db(DocumentHandlers.post),
        ]),
        Route([.db, .literal("_all_docs")], ["GET": db(AllDocsHandlers.get), "POST": db(AllDocsHandlers.post)]),
        Route([.db, .literal("_design_docs")], ["GET": db(AllDocsHandlers.designDocs)]),
        Route([.db, .literal("_local_docs")], ["GET": db(LocalDocHandlers.list), "POST": db(LocalDocHandlers.list)]),
        Route([.db, .literal("_bulk_docs")], ["POST": db(BulkHandlers.bulkDocs)]),
        Route([.db, .literal("_bulk_get")], ["POST": db(BulkHandlers.bulkGet)]),
        Route([.db, .literal("_revs_diff")], ["POST": db(RevsDiffHandlers.revsDiff)]),
        Route([.db, .literal("_missing_revs")], ["POST": db(RevsDiffHandlers.missingRevs)]),
        Route([.db, .literal("_changes")], ["GET": db(ChangesHandlers.changes), "POST": db(ChangesHandlers.changes)]),
        Route([.db, .literal("_revs_limit")], ["GET": db(MaintenanceHandlers.getRevsLimit),
                                               "PUT": db(MaintenanceHandlers.putRevsLimit)]),
        Route([.db, .literal("_compact")], ["POST": db(MaintenanceHandlers.compact)]),
        Route([.db, .literal("_purge")], ["POST": db(PurgeHandlers.purge)]),
        Route([.db, .literal("_purged_infos")], ["GET": db(PurgeHandlers.purgedInfos)]),
        Route([.db, .literal("_purged_infos_limit")], ["GET": db(PurgeHandlers.getLimit),
                                                       "PUT": db(PurgeHandlers.putLimit)]),
        Route([.db, .literal("_ensure_full_commit")], ["POST": db(MaintenanceHandlers.ensureFullCommit)]),
        Route([.db, .literal("_security")], ["GET": db(MaintenanceHandlers.getSecurity),
                                             "PUT": db(MaintenanceHandlers.putSecurity)]),

        Route([.db, .docID], [
            "GET": db(DocumentHandlers.get), "PUT": db(DocumentHandlers.put),
            "DELETE": db(DocumentHandlers.delete), "COPY": db(DocumentHandlers.copy),
            "POST": db(FormUploadHandler.post),
        ]),
        Route([.db, .docID, .attachment], [
            "GET": db(AttachmentHandlers.get), "PUT": db(AttachmentHandlers.put),
            "DELETE": db(AttachmentHandlers.delete),
        ]),
    ]

    /// Wraps a handler that needs an open database: a missing one is answered
    /// 404 `not_found` "Database does not exist." before the handler runs.
    static func db(_ handler: @escaping @Sendable (RequestContext, Database) async throws -> HTTPResponse) -> Handler {
        { context in
            guard let name = context.parameters.db, let database = try context.node.directory.database(named: name) else {
                throw CouchError.databaseNotFound
            }
            if !context.user.isAdmin {
                try SecurityObject(bytes: try await database.security()).requireMember(context.user)
            }
            return try await handler(context, database)
        }
    }
}
