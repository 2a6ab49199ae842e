/// Every known revision of one document: a forest of paths (stemming can cut
/// roots off), each node pointing at its parent. A pure value with no I/O.
///
/// Winner rule (spec/couchdb.md "Revisions", CouchDB `couch_doc:to_doc_info`):
/// among leaves prefer non-deleted; then the highest generation; then the
/// greatest suffix as a byte string.
///
/// API CONTRACT — implementation to be completed by the store work.
public struct RevisionTree: Sendable {
    public struct Node: Sendable, Hashable {
        public let rev: RevisionID
        /// The parent revision; nil for a root (first revision, or stemmed).
        public let parent: RevisionID?
        public let isDeleted: Bool
        /// The sequence of the write that stored this revision.
        public let sequence: Int64
        /// Whether the store still has this revision's body.
        public let hasBody: Bool

        public init(rev: RevisionID, parent: RevisionID?, isDeleted: Bool, sequence: Int64, hasBody: Bool) {
            self.rev = rev
            self.parent = parent
            self.isDeleted = isDeleted
            self.sequence = sequence
            self.hasBody = hasBody
        }
    }

    public private(set) var nodes: [RevisionID: Node] = [:]

    public init() {}
    public init(nodes: [Node]) {
        for node in nodes { self.nodes[node.rev] = node }
    }

    public var isEmpty: Bool { nodes.isEmpty }
    public func node(_ rev: RevisionID) -> Node? { nodes[rev] }
    public func contains(_ rev: RevisionID) -> Bool { nodes[rev] != nil }
}
