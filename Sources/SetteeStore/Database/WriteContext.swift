/// Who is writing, for the rules that depend on it. The server sets it around a
/// request's handler (`WriteContext.$writer.withValue`); writes with none (the
/// server's own jobs, the replicator's local peer, tests) are trusted.
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
}

public enum WriteContext {
    @TaskLocal public static var writer: WriterIdentity?
}
