/// One `_all_docs` row.
public struct AllDocsRow: Sendable {
    public let id: String
    /// The winning revision; nil when the id was asked for by `keys` and never existed.
    public let rev: RevisionID?
    /// True for a requested key whose winner is deleted.
    public let isDeleted: Bool
    /// The winner's body when asked for and available.
    public var body: [UInt8]?
    /// `_conflicts` (`RevisionTree.conflicts`), when `AllDocsQuery.includeConflicts` asked for them.
    public var conflicts: [RevisionID] = []

    public init(id: String, rev: RevisionID?, isDeleted: Bool, body: [UInt8]?) {
        self.id = id
        self.rev = rev
        self.isDeleted = isDeleted
        self.body = body
    }
}
