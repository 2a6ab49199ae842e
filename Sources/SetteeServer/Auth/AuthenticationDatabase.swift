import Synchronization

/// `[chttpd_auth] authentication_db`: the database whose user documents log people in
/// (default `_users`), switched at run time by `/_node/_local/_config` as CouchDB
/// switches it (`chttpd_auth_cache:dbname/0` reads the setting on every lookup).
///
/// Which databases get the users-database rules (`UsersDatabasePolicy`, the read rule,
/// `_design/_auth`) is CouchDB's `fabric_util:is_users_db/1`: the configured one, and
/// any database named `_users` or ending in `/_users` — so switching does not open the
/// old `_users` to everyone.
final class AuthenticationDatabase: Sendable {
    static let defaultName = "_users"
    private let current: Mutex<String>
    /// `[chttpd_auth] password_regexp`, which new passwords in a users database must meet.
    let passwordRequirements = PasswordRequirements()

    init(name: String = AuthenticationDatabase.defaultName) { current = Mutex(name) }

    /// The database credentials are read from.
    var name: String { current.withLock { $0 } }

    /// Switches to `name`; nil (the setting deleted) goes back to `_users`.
    func set(_ name: String?) { current.withLock { $0 = name ?? Self.defaultName } }

    func isUsersDatabase(_ databaseName: String) -> Bool {
        databaseName == name || databaseName == Self.defaultName || databaseName.hasSuffix("/" + Self.defaultName)
    }
}
