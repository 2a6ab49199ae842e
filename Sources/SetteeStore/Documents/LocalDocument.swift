/// A `_local/` document: no history, rev `0-N`.
public struct LocalDocument: Sendable {
    /// The id without the `_local/` prefix.
    public let id: String
    public let rev: String
    public let body: [UInt8]

    public init(id: String, rev: String, body: [UInt8]) {
        self.id = id
        self.rev = rev
        self.body = body
    }
}
