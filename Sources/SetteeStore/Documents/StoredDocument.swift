/// A document as read: its whole revision tree, and the revisions asked for.
public struct StoredDocument: Sendable {
    public let id: String
    public let tree: RevisionTree
    /// The revisions requested from `Database.document(id:revisions:)`, in request order.
    public let revisions: [StoredRevision]
    /// The sequence of the document's latest change.
    public let sequence: Int64

    public init(id: String, tree: RevisionTree, revisions: [StoredRevision], sequence: Int64) {
        self.id = id
        self.tree = tree
        self.revisions = revisions
        self.sequence = sequence
    }
}
