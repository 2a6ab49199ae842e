/// One row of `_changes`: a document at the seq of its latest change.
public struct Change: Sendable {
    public let sequence: Int64
    public let id: String
    /// Every leaf revision, the winner first, then in descending winner order.
    public let leaves: [RevisionID]
    /// Whether the winner is a deletion.
    public let isDeleted: Bool

    public init(sequence: Int64, id: String, leaves: [RevisionID], isDeleted: Bool) {
        self.sequence = sequence
        self.id = id
        self.leaves = leaves
        self.isDeleted = isDeleted
    }

    /// The row of a document whose revision tree is `tree`: its leaves, winner first.
    init(sequence: Int64, id: String, tree: RevisionTree) {
        let leaves = tree.leaves
        self.init(sequence: sequence, id: id, leaves: leaves.map(\.rev), isDeleted: leaves.first?.isDeleted ?? false)
    }
}
