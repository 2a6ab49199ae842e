import SetteeStore

/// What `_users` shows to those who are not its admins, as CouchDB 3.4.3 answers
/// when `_users`' `_security` lets them in at all (checked on 3.4.3 with
/// `users_db_security_editable` and an empty `_security`): listings (`_all_docs`,
/// `_changes`) need a server admin — 401 "You are not a server admin."; a user
/// document is read only by the user it names — anyone else gets 404 "missing", as
/// if it did not exist (CouchDB's `couch_users_db:after_doc_read`); a design document
/// only by `_users`' admins — anyone else gets 403.
///
/// The same rule holds wherever a document is handed to code or to a client
/// (`DesignFunctionAccess`): views and lists, built from every user
/// document, are for `_users`' admins; a show or an update gets null for a document
/// its requester may not read; a COPY cannot read one either.
enum UsersDatabaseReadRule {
    /// Whether `database` has the users-database rules (`AuthenticationDatabase`).
    static func isUsersDatabase(_ database: Database, _ context: RequestContext) -> Bool {
        context.node.live.authentication.isUsersDatabase(database.name)
    }

    /// CouchDB's answer to a non-admin for a design document of `_users`, and for
    /// anything that runs one's functions over user documents (views, lists).
    static let designDocumentRefusal = CouchError(403, "forbidden",
                                                  "Only administrators can view design docs in the users database.")

    /// - Throws: 401 for a listing of `_users` by anyone but a server admin.
    static func requireListing(_ context: RequestContext, _ database: Database) throws {
        guard isUsersDatabase(database, context), !context.user.isAdmin else { return }
        throw CouchError(401, "unauthorized", "You are not a server admin.")
    }

    /// Whether the requester is an admin of `_users` (`couch_db:check_is_admin`): a server
    /// admin, or named in its `_security.admins`.
    static func isAdmin(_ context: RequestContext, _ database: Database) async throws -> Bool {
        if context.user.isAdmin { return true }
        return SecurityObject(bytes: try await database.security()).admins.admits(context.user)
    }

    /// Whether the requester may read document `id` of `database`.
    static func mayRead(_ id: String, _ context: RequestContext, _ database: Database) async throws -> Bool {
        guard isUsersDatabase(database, context), !context.user.isAdmin else { return true }
        if !id.hasPrefix("_design/"), let name = context.user.name, id == "org.couchdb.user:" + name { return true }
        return try await isAdmin(context, database)
    }

    /// - Throws: 404 "missing" when the requester may not read user document `id`,
    ///   403 `forbidden` for a design document.
    static func requireRead(_ id: String, _ context: RequestContext, _ database: Database) async throws {
        guard try await !mayRead(id, context, database) else { return }
        throw id.hasPrefix("_design/") ? designDocumentRefusal : CouchError(404, "not_found", "missing")
    }
}
