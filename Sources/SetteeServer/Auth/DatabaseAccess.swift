import SetteeStore

/// Who may use a database, decided once per request before its handler runs (the
/// route table's `db` helper calls it), as CouchDB's `chttpd_auth_request` and
/// `couch_db:check_is_member` decide it:
///
///     server admin        everything
///     pairing user        its one database, whatever `_security` says (PairingAccess)
///     database admin      `_security.admins`: documents, design documents, `_security`
///     member              `_security.members` (anyone when it names nobody): documents
///     anyone else         401 when anonymous, 403 when logged in
///
/// System databases add their own rules in the handlers that hand documents out
/// (`UsersDatabaseReadRule`, `ReplicatorReadRule`) and around the routes that hand them
/// to design functions (`DesignFunctionAccess`).
enum DatabaseAccess {
    /// Checks that the requester may use `database`, and answers whether they are one
    /// of its admins (a server admin, or named by `_security.admins`).
    /// - Throws: 401 or 403 `forbidden` as `SecurityObject.requireMember` and `PairingAccess` answer.
    static func authorize(_ context: RequestContext, _ database: Database) async throws -> Bool {
        if context.user.isAdmin { return true }
        if let grant = context.user.pairing {
            // Its one database, whatever its `_security` says (`settee pair` granted it).
            try PairingAccess.check(grant, context)
            return false
        }
        let security = SecurityObject(bytes: try await database.security())
        try security.requireMember(context.user)
        return security.admins.admits(context.user)
    }
}
