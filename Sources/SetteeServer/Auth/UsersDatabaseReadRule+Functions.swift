import SetteeHTTP
import SetteeStore

/// `_users`' read rule on the paths that hand documents to design functions or copy
/// them, applied by the route table around their handlers (issue 46, item 7). What
/// CouchDB 3.4.3 answered a user who is not `_users`' admin (checked on 3.4.3, with
/// `users_db_security_editable` and an empty `_security`):
///
///     _view, _view/queries, _list     403 forbidden (the design document is not theirs to read)
///     _show, _update on another's     the function runs with a null document
///     _show, _update on their own     the function gets it
///     COPY of another's document      404 not_found "missing"
///
/// Everywhere else a database is not `_users` and the handler runs unchanged.
extension UsersDatabaseReadRule {
    typealias DatabaseHandler = @Sendable (RequestContext, Database) async throws -> HTTPResponse

    /// Views and lists: their index holds every user document (and whatever of it the
    /// map function emits: a `derived_key`, a `salt`), so only `_users`' admins query them.
    static func adminsOnly(_ handler: @escaping DatabaseHandler) -> DatabaseHandler {
        { context, database in
            if isUsersDatabase(database), try await !isAdmin(context, database) { throw designDocumentRefusal }
            return try await handler(context, database)
        }
    }

    /// Shows and updates (`/_show/{name}/{docid}`): a document the requester may not read
    /// is left out, so the function gets null as CouchDB's `after_doc_read` makes it
    /// `not_found`. (CouchDB still shows the function the id as `req.id`; here it is null
    /// too, since the handler reads both from the path.)
    static func readableDocumentOnly(_ handler: @escaping DatabaseHandler) -> DatabaseHandler {
        { context, database in
            guard isUsersDatabase(database), let id = context.parameters[.path],
                  try await !mayRead(id, context, database) else { return try await handler(context, database) }
            var parameters = context.parameters
            parameters[.path] = nil
            let withoutDocument = RequestContext(request: context.request, user: context.user, node: context.node,
                                                 parameters: parameters, query: context.query)
            return try await handler(withoutDocument, database)
        }
    }

    /// COPY reads its source as a GET would.
    static func readableSource(_ handler: @escaping DatabaseHandler) -> DatabaseHandler {
        { context, database in
            if let id = context.parameters.docID { try await requireRead(id, context, database) }
            return try await handler(context, database)
        }
    }
}
