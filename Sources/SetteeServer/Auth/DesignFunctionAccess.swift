import SetteeHTTP
import SetteeJSON
import SetteeStore

/// The system databases' read rules on the paths that hand documents to design
/// functions or copy them, applied by the route table around their handlers (issue 46,
/// item 7), so that no function sees a document its caller could not read.
///
/// `_users`, what CouchDB 3.4.3 answered a user who is not its admin (checked on 3.4.3,
/// with `users_db_security_editable` and an empty `_security`):
///
///     _view, _view/queries, _list     403 forbidden (the design document is not theirs to read)
///     _show, _update on another's     the function runs with a null document
///     _show, _update on their own     the function gets it
///     COPY of another's document      404 not_found "missing"
///
/// `_replicator` (Settee's own, stricter than CouchDB 3.4.3): views and lists are for its
/// admins, since their index holds every document with its credentials (CouchDB serves
/// them to members); a show or update gets null for a document the caller does not own,
/// where CouchDB hands the function the document with its credentials stripped.
///
/// Everywhere else the handler runs unchanged.
enum DesignFunctionAccess {
    typealias DatabaseHandler = @Sendable (RequestContext, Database) async throws -> HTTPResponse

    static let replicatorRefusal = CouchError(403, "forbidden",
                                              "Only administrators can query views in the replicator database.")

    /// Views and lists: their index is built from every document (and whatever of it the
    /// map function emits: a `derived_key`, a `salt`, a replication's password).
    static func adminsOnly(_ handler: @escaping DatabaseHandler) -> DatabaseHandler {
        { context, database in
            if UsersDatabaseReadRule.isUsersDatabase(database, context), try await !UsersDatabaseReadRule.isAdmin(context, database) {
                throw UsersDatabaseReadRule.designDocumentRefusal
            }
            if try await ReplicatorReadRule.mustCheck(context, database) { throw replicatorRefusal }
            return try await handler(context, database)
        }
    }

    // Shows and updates (`/_show/{name}/{docid}`) ask `mayReadWhole` themselves
    // (RenderHandlers): a document the caller may not read whole reaches the function as
    // null while `req.id` keeps the id, as CouchDB's `after_doc_read` makes it `not_found`.

    /// COPY reads its source as a GET would, and copies it only whole: not another's
    /// `_replicator` document (into `_local/`, its credentials would be readable).
    static func readableSource(_ handler: @escaping DatabaseHandler) -> DatabaseHandler {
        { context, database in
            if let id = context.parameters.docID {
                try await UsersDatabaseReadRule.requireRead(id, context, database)
                guard try await mayReadWhole(id, context, database) else { throw CouchError(404, "not_found", "missing") }
            }
            return try await handler(context, database)
        }
    }

    /// Whether the caller may read document `id` as it is stored: in `_users` a user
    /// document by its user, in `_replicator` a document by its owner (others would see
    /// it only with credentials stripped), anywhere else anything.
    static func mayReadWhole(_ id: String, _ context: RequestContext, _ database: Database) async throws -> Bool {
        guard try await UsersDatabaseReadRule.mayRead(id, context, database) else { return false }
        guard try await ReplicatorReadRule.mustCheck(context, database), !id.hasPrefix("_design/") else { return true }
        guard let name = context.user.name, let stored = try await database.winner(id: id), let body = stored.body,
              let owner = (try? JSONReader.parse(body))?["owner"]?.stringValue else { return false }
        return owner == name
    }
}
