import SetteeDocuments
import SetteeHTTP
import SetteeStore

/// THE route table. Literal segments win over `{parameters}` wherever both
/// match (the router backtracks), so `_` endpoints need no ordering; where
/// CouchDB decides by the request's body rather than its path, `byBody` says so.
/// (As CouchDB's `chttpd_httpd_handlers.erl` and LiteCore's `RESTListener.cc`.)
enum Routes {
    static let table: [(String, [HTTPMethod: Handler])] = [
        ("/", [.GET: ServerHandlers.welcome]),
        ("/_up", [.GET: ServerHandlers.up]),
        ("/_uuids", [.GET: ServerHandlers.uuids]),
        ("/_all_dbs", [.GET: ServerHandlers.allDatabases]),
        ("/_dbs_info", [.GET: ServerHandlers.databasesInfoList, .POST: ServerHandlers.databasesInfo]),
        ("/_db_updates", [.GET: DatabaseUpdatesHandlers.feed]),
        ("/_replicate", [.POST: ReplicationHandlers.replicate]),
        ("/_active_tasks", [.GET: SchedulerHandlers.activeTasks]),
        ("/_scheduler/jobs", [.GET: SchedulerHandlers.jobs]),
        ("/_scheduler/docs", [.GET: SchedulerHandlers.docs]),
        ("/_scheduler/docs/{db}/{docid}", [.GET: SchedulerHandlers.doc]),
        ("/_peers", [.GET: serverAdmin(PeersHandlers.get)]),
        ("/_session", [.GET: SessionHandlers.get, .POST: SessionHandlers.post, .DELETE: SessionHandlers.delete]),
        ("/_utils", [.GET: WebAdminHandlers.index]),
        ("/_utils/{path...}", [.GET: WebAdminHandlers.asset]),
        ("/_membership", [.GET: NodeHandlers.membership]),
        ("/_node/{node}", [.GET: NodeHandlers.node]),
        ("/_node/{node}/_config", [.GET: NodeHandlers.allConfig]),
        ("/_node/{node}/_stats", [.GET: StatsHandlers.stats]),
        ("/_node/{node}/_stats/{path...}", [.GET: StatsHandlers.stats]),
        ("/_node/{node}/_system", [.GET: StatsHandlers.system]),
        ("/_node/{node}/_versions", [.GET: NodeHandlers.versions]),
        ("/_reshard", [.GET: ReshardHandlers.summary]),
        ("/_reshard/state", [.GET: ReshardHandlers.state, .PUT: ReshardHandlers.setState]),
        ("/_reshard/jobs", [.GET: ReshardHandlers.jobs, .POST: ReshardHandlers.createJobs]),
        ("/_reshard/jobs/{name}", [.GET: ReshardHandlers.job, .DELETE: ReshardHandlers.job]),
        ("/_reshard/jobs/{name}/state", [.GET: ReshardHandlers.job, .PUT: ReshardHandlers.job]),
        ("/_node/{node}/_prometheus", [.GET: StatsHandlers.prometheus]),
        ("/_node/{node}/_config/_reload", [.POST: NodeHandlers.reload]),
        ("/_node/{node}/_config/{section}", [.GET: NodeHandlers.section]),
        ("/_node/{node}/_config/{section}/{key}", [.GET: NodeHandlers.value, .PUT: NodeHandlers.put,
                                                   .DELETE: NodeHandlers.delete]),

        ("/{db}", [.GET: db(DatabaseHandlers.info), .PUT: DatabaseHandlers.create,
                   .DELETE: DatabaseHandlers.delete, .POST: db(DocumentHandlers.post)]),
        ("/{db}/_all_docs", [.GET: db(AllDocsHandlers.get), .POST: db(AllDocsHandlers.post)]),
        ("/{db}/_design_docs", [.GET: db(AllDocsHandlers.designDocs), .POST: db(AllDocsHandlers.designDocs)]),
        ("/{db}/_all_docs/queries", [.POST: db(AllDocsHandlers.allDocsQueries)]),
        ("/{db}/_design_docs/queries", [.POST: db(AllDocsHandlers.designDocsQueries)]),
        ("/{db}/_local_docs", [.GET: db(LocalDocHandlers.list), .POST: db(LocalDocHandlers.list)]),
        ("/{db}/_local_docs/queries", [.POST: db(LocalDocHandlers.queries)]),
        ("/{db}/_bulk_docs", [.POST: db(BulkHandlers.bulkDocs)]),
        ("/{db}/_bulk_get", [.POST: db(BulkHandlers.bulkGet)]),
        ("/{db}/_revs_diff", [.POST: db(RevsDiffHandlers.revsDiff)]),
        ("/{db}/_missing_revs", [.POST: db(RevsDiffHandlers.missingRevs)]),
        ("/{db}/_changes", [.GET: db(ChangesHandlers.changes), .POST: db(ChangesHandlers.changes)]),
        ("/{db}/_revs_limit", [.GET: db(MaintenanceHandlers.getRevsLimit), .PUT: db(MaintenanceHandlers.putRevsLimit)]),
        ("/{db}/_compact", [.POST: db(MaintenanceHandlers.compact)]),
        ("/{db}/_compact/{ddoc}", [.POST: db(DesignDocumentHandlers.compact)]),
        ("/{db}/_view_cleanup", [.POST: db(DesignDocumentHandlers.viewCleanup)]),
        ("/{db}/_purge", [.POST: serverAdmin(db(PurgeHandlers.purge))]),
        ("/{db}/_purged_infos", [.GET: serverAdmin(db(PurgeHandlers.purgedInfos))]),
        ("/{db}/_conflicts", [.GET: db(ConflictsHandlers.list)]),
        ("/{db}/_resolve_conflicts", [.POST: db(ConflictResolutionHandlers.resolve)]),
        ("/{db}/_purged_infos_limit", [.GET: serverAdmin(db(PurgeHandlers.getLimit)),
                                       .PUT: serverAdmin(db(PurgeHandlers.putLimit))]),
        ("/{db}/_ensure_full_commit", [.POST: db(MaintenanceHandlers.ensureFullCommit)]),
        ("/{db}/_find", [.POST: db(FindHandlers.find)]),
        ("/{db}/_explain", [.POST: db(FindHandlers.explain)]),
        ("/{db}/_index", [.GET: db(IndexHandlers.list), .POST: db(IndexHandlers.create)]),
        ("/{db}/_index/_bulk_delete", [.POST: db(IndexHandlers.bulkDelete)]),
        ("/{db}/_index/{ddoc}/{type}/{name}", [.DELETE: db(IndexHandlers.delete)]),
        ("/{db}/_index/_design/{ddoc}/{type}/{name}", [.DELETE: db(IndexHandlers.delete)]),
        // No database is partitioned (DatabaseHandlers.partitionedOption).
        ("/{db}/_partition/{path...}", everyMethod(db { _, _ in
            throw CouchError.badRequest("database is not partitioned")
        })),
        ("/{db}/_security", [.GET: db(MaintenanceHandlers.getSecurity), .PUT: db(MaintenanceHandlers.putSecurity)]),
        // Temporary views are gone from CouchDB 2.0 on: 410 for every method
        // (chttpd_view:handle_temp_view_req/2; view_errors_test.exs).
        ("/{db}/_temp_view", everyMethod(db { _, _ in
            throw CouchError(410, "gone", "Temporary views are not supported in CouchDB")
        })),

        ("/{db}/{docid}", document),
        ("/{db}/{docid}/{attachment...}", attachment),
        ("/{db}/_design/{ddoc}", document),
        ("/{db}/_design/{ddoc}/{attachment...}", attachment),
        // The system databases' read rules wrap every route that hands documents to design functions (issue 46).
        ("/{db}/_design/{ddoc}/_view/{view}", [.GET: db(adminsInSystemDatabases(ViewHandlers.query)),
                                               .POST: db(adminsInSystemDatabases(ViewHandlers.query))]),
        ("/{db}/_design/{ddoc}/_view/{view}/queries", [.POST: db(adminsInSystemDatabases(ViewHandlers.queries))]),
        ("/{db}/_design/{ddoc}/_info", [.GET: db(DesignDocumentHandlers.info)]),
        ("/{db}/_design/{ddoc}/_show/{name}", everyMethod(db(sandboxed(RenderHandlers.show)))),
        ("/{db}/_design/{ddoc}/_show/{name}/{path...}", everyMethod(db(sandboxed(RenderHandlers.show)))),
        ("/{db}/_design/{ddoc}/_update/{name}", everyMethod(db(sandboxed(RenderHandlers.update)))),
        ("/{db}/_design/{ddoc}/_update/{name}/{path...}", everyMethod(db(sandboxed(RenderHandlers.update)))),
        ("/{db}/_design/{ddoc}/_list/{name}", everyMethod(db { _, _ in throw CouchError(404, "list_error", "Invalid path.") })),
        // A handler's name without what it names (couch_mrview_show, chttpd_db's design handlers).
        ("/{db}/_design/{ddoc}/_show", everyMethod(db { _, _ in throw CouchError(404, "show_error", "Invalid path.") })),
        ("/{db}/_design/{ddoc}/_update", everyMethod(db { _, _ in throw CouchError(404, "update_error", "Invalid path.") })),
        ("/{db}/_design/{ddoc}/_list", everyMethod(db { _, _ in throw CouchError(404, "list_error", "Invalid path.") })),
        ("/{db}/_design/{ddoc}/_view", everyMethod(db { _, _ in
            throw CouchError(405, "method_not_allowed", "Only GET,POST,HEAD allowed", headers: [("Allow", "GET,POST,HEAD")])
        })),
        ("/{db}/_design/{ddoc}/_rewrite", everyMethod(db(RewriteHandlers.rewrite))),
        ("/{db}/_design/{ddoc}/_rewrite/{path...}", everyMethod(db(RewriteHandlers.rewrite))),
        ("/{db}/_design/{ddoc}/_list/{name}/{path...}", [.GET: db(sandboxed(adminsInSystemDatabases(RenderHandlers.list))),
                                                          .POST: db(sandboxed(adminsInSystemDatabases(RenderHandlers.list)))]),
        ("/{db}/_local", everyMethod(db { _, _ in throw CouchError.badRequest("Invalid _local document id.") })),
        ("/{db}/_local/{localid}", [.GET: db(LocalDocHandlers.get), .PUT: db(LocalDocHandlers.put),
                                    .DELETE: db(LocalDocHandlers.delete), .COPY: db(DocumentHandlers.copy),
                                    .POST: db(FormUploadHandler.post)]),
        ("/{db}/_local/{localid}/{attachment...}", everyMethod(db { _, _ in
            throw CouchError.badRequest("_local documents do not accept attachments.")
        })),
    ]

    /// The router of `table`, for requests a handler answers as another (`_rewrite`).
    static let router = Router(table)

    static let document: [HTTPMethod: Handler] = [
        .GET: db(DocumentHandlers.get), .DELETE: db(DocumentHandlers.delete),
        .COPY: db(DesignFunctionAccess.readableSource(DocumentHandlers.copy)),
        .PUT: byBody(json: db(DocumentHandlers.put), multipart: db(MultipartDocumentHandler.put)),
        .POST: db(FormUploadHandler.post),
    ]

    static let attachment: [HTTPMethod: Handler] = [
        .GET: db(AttachmentHandlers.get), .PUT: db(AttachmentHandlers.put), .DELETE: db(AttachmentHandlers.delete),
    ]

    /// Wraps a handler that needs an open database: a missing one is answered
    /// 404 `not_found` "Database does not exist." before the handler runs.
    static func db(_ handler: @escaping @Sendable (RequestContext, Database) async throws -> HTTPResponse) -> Handler {
        { context in
            guard let name = context.parameters.db, let database = try await context.node.directory.open(name) else {
                throw CouchError.databaseNotFound
            }
            let isDatabaseAdmin = try await DatabaseAccess.authorize(context, database)
            // Reads write nothing: the hot path skips the task-local below.
            if context.request.method == "GET" || context.request.method == "HEAD" {
                // `/{db}/_design%2F{name}/...` is 301 to the unescaped path for anything under
                // it, views and `_info` too (chttpd_db:db_req/2; design_paths_test.exs).
                if let redirect = DesignDocRedirect.response(context) { return redirect }
                return try await handler(context, database)
            }
            // The store's rules (design documents, `_users`) read who writes from here.
            let writer = WriterIdentity(name: context.user.name, roles: context.user.roles, isDatabaseAdmin: isDatabaseAdmin)
            return try await WriteContext.$writer.withValue(writer) { try await handler(context, database) }
        }
    }

    static let adminsInSystemDatabases = DesignFunctionAccess.adminsOnly
    static let sandboxed = UserContentPolicy.sandboxed

    /// Server admins only, checked before the database is (CouchDB answers 401
    /// "You are not a server admin." to anyone else, member or not).
    static func serverAdmin(_ handler: @escaping Handler) -> Handler {
        { context in
            try context.requireAdmin()
            return try await handler(context)
        }
    }

    /// A document PUT is JSON, or `multipart/*` carrying its attachments (CouchDB
    /// decides by the `Content-Type`, in `chttpd_db:db_doc_req`).
    static func byBody(json: @escaping Handler, multipart: @escaping Handler) -> Handler {
        { context in
            MultipartReader.boundary(fromContentType: context.headers["Content-Type"] ?? "") == nil
                ? try await json(context) : try await multipart(context)
        }
    }

    /// The same answer whatever the method (CouchDB's path-level errors).
    static func everyMethod(_ handler: @escaping Handler) -> [HTTPMethod: Handler] {
        Dictionary(uniqueKeysWithValues: HTTPMethod.allCases.map { ($0, handler) })
    }
}
