/// `_revs_diff` answer for one document.
public struct RevisionsDiff: Sendable {
    public let id: String
    public let missing: [RevisionID]
    public let possibleAncestors: [RevisionID]

    public init(id: String, missing: [RevisionID], possibleAncestors: [RevisionID]) {
        self.id = id
        self.missing = missing
        self.possibleAncestors = possibleAncestors
    }
}
