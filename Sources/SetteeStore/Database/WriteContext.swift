/// Who is writing, for the rules that depend on it (design documents, `_users`,
/// `validate_doc_update`, `_replicator` owners). The server sets it around a request's
/// handler from the authenticated user (`WriteContext.$writer.withValue`); the node's
/// own jobs declare `system`; a program embedding Settee declares its own identity.
/// A write that declares none is `anonymous`: never an admin by accident.
public struct WriterIdentity: Sendable, Equatable {
    public let name: String?
    public let roles: [String]
    /// A server admin, or one of the database's `_security.admins`.
    public let isDatabaseAdmin: Bool

    public init(name: String?, roles: [String], isDatabaseAdmin: Bool) {
        self.name = name
        self.roles = roles
        self.isDatabaseAdmin = isDatabaseAdmin
    }

    /// The node's own work, trusted as a server admin: its replication jobs (started by
    /// server admins or `_replicator` documents), `_replicator` state updates, pairing grants.
    public static let system = WriterIdentity(name: nil, roles: ["_admin"], isDatabaseAdmin: true)

    /// Nobody in particular: what a write that declares no writer is taken as.
    public static let anonymous = WriterIdentity(name: nil, roles: [], isDatabaseAdmin: false)
}

public enum WriteContext {
    @TaskLocal public static var writer: WriterIdentity?

    /// The running task's writer: the declared one, else `anonymous` (least privileged).
    public static var current: WriterIdentity { writer ?? .anonymous }
}
