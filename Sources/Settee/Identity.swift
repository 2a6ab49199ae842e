internal import SetteeStore

/// Who is writing: every write through this API is made as an explicit identity, never
/// as "nobody, so trusted". The store's rules read it: design documents need a database
/// admin, `validate_doc_update` functions see it as `userCtx`, `_users` lets a non-admin
/// change only their own document.
///
/// A program's own writes are made as ``local`` unless it declares another identity
/// (``DataDirectory/Options/identity``). Remote peers that write through a
/// ``Listener`` are whoever they authenticate as over HTTP, exactly as with
/// `settee serve`: an unauthenticated peer is never an admin.
public struct Identity: Sendable, Hashable {
    /// The user name, nil for an anonymous writer.
    public let name: String?
    public let roles: [String]
    /// A server admin, or one of the database's `_security.admins`.
    public let isAdmin: Bool

    /// - Parameters:
    ///   - name: the user name (`userCtx.name`), nil for anonymous.
    ///   - roles: `userCtx.roles`; `_admin` among them makes a server admin.
    ///   - isAdmin: whether the identity may write design documents and `_security`.
    public init(name: String?, roles: [String] = [], isAdmin: Bool = false) {
        self.name = name
        self.roles = roles
        self.isAdmin = isAdmin || roles.contains("_admin")
    }

    /// The program itself: the owner of its data directory, a server admin of it.
    public static let local = Identity(name: "_local", roles: ["_admin"], isAdmin: true)

    /// Nobody in particular: may write ordinary documents where `_security` allows,
    /// never design documents.
    public static let anonymous = Identity(name: nil, roles: [], isAdmin: false)

    /// The store's form of it.
    var writer: WriterIdentity { WriterIdentity(name: name, roles: roles, isDatabaseAdmin: isAdmin) }

    /// Runs `body` as this identity (the store's rules read the writer from the task).
    func perform<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await WriteContext.$writer.withValue(writer) { try await body() }
    }
}
