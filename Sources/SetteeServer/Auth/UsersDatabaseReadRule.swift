import SetteeStore

/// What `_users` shows to those who are not its admins, as CouchDB 3.4.3 answers
/// when `_users`' `_security` lets them in at all (checked on 3.4.3 with
/// `users_db_security_editable` and an empty `_security`): listings (`_all_docs`,
/// `_changes`) need a server admin — 401 "You are not a server admin."; a user
/// document is read only by the user it names — anyone else gets 404 "missing", as
/// if it did not exist (CouchDB's `couch_users_db:after_doc_read`). Design
/// documents stay readable.
enum UsersDatabaseReadRule {
    static func isUsersDatabase(_ database: Database) -> Bool { database.name == UserDirectory.databaseName }

    /// - Throws: 401 for a listing of `_users` by anyone but a server admin.
    static func requireListing(_ context: RequestContext, _ database: Database) throws {
        guard isUsersDatabase(database), !context.user.isAdmin else { return }
        throw CouchError(401, "unauthorized", "You are not a server admin.")
    }

    /// Whether the requester may read document `id` of `database`.
    static func mayRead(_ id: String, _ context: RequestContext, _ database: Database) async throws -> Bool {
        guard isUsersDatabase(database), !context.user.isAdmin, !id.hasPrefix("_design/") else { return true }
        if let name = context.user.name, id == "org.couchdb.user:" + name { return true }
        return SecurityObject(bytes: try await database.security()).admins.admits(context.user)
    }

    /// - Throws: 404 "missing" when the requester may not read `id`.
    static func requireRead(_ id: String, _ context: RequestContext, _ database: Database) async throws {
        guard try await mayRead(id, context, database) else { throw CouchError(404, "not_found", "missing") }
    }
}
