/// Every known revision of one document: a forest of paths (stemming can cut
/// roots off), each node pointing at its parent. A pure value with no I/O.
///
/// Winner rule (spec/couchdb.md "Revisions", CouchDB `couch_doc:to_doc_info`):
/// among leaves prefer non-deleted; then the highest generation; then the
/// greatest suffix as a byte string. Every peer computes the same winner.
///
/// Invariants: a node's parent, when not nil, is normally in the tree; a
/// parent missing from `nodes` (it can only happen with hand-built trees) is
/// treated as a stemmed root. A leaf is a node that is no other node's parent.
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
        self.nodes.reserveCapacity(nodes.count)
        for node in nodes { self.nodes[node.rev] = node }
    }

    public var isEmpty: Bool { nodes.isEmpty }
    public func node(_ rev: RevisionID) -> Node? { nodes[rev] }
    public func contains(_ rev: RevisionID) -> Bool { nodes[rev] != nil }

    /// Adds or replaces `node`.
    public mutating func insert(_ node: Node) { nodes[node.rev] = node }

    /// Removes `rev` (children keep pointing at it until re-inserted; see `stem(to:)`).
    public mutating func remove(_ rev: RevisionID) { nodes[rev] = nil }

    /// Whether `rev` is in the tree and has no child.
    public func isLeaf(_ rev: RevisionID) -> Bool {
        contains(rev) && !nodes.values.contains { $0.parent == rev }
    }

    /// The open revisions, in winner order: the winner first.
    public var leaves: [Node] {
        if nodes.count == 1 { return Array(nodes.values) }
        let parents = Set(nodes.values.compactMap(\.parent))
        return nodes.values.filter { !parents.contains($0.rev) }.sorted(by: RevisionTree.ranksBefore)
    }

    /// The winning leaf (nil only for an empty tree).
    public var winner: Node? { leaves.first }

    /// `_conflicts`: the non-deleted leaves other than the winner, in winner order.
    public var conflicts: [RevisionID] { leaves.dropFirst().filter { !$0.isDeleted }.map(\.rev) }

    /// `_deleted_conflicts`: the deleted leaves other than the winner, in winner order.
    public var deletedConflicts: [RevisionID] { leaves.dropFirst().filter(\.isDeleted).map(\.rev) }

    /// `rev`, its parent, ... up to its root; empty when `rev` is not in the tree.
    public func history(of rev: RevisionID) -> [RevisionID] {
        var path: [RevisionID] = []
        var current = nodes[rev]
        while let node = current {
            path.append(node.rev)
            // Bounded by the node count, so a malformed cycle cannot loop forever.
            guard path.count <= nodes.count else { break }
            current = node.parent.flatMap { nodes[$0] }
        }
        return path
    }

    /// CouchDB's winner order: live before deleted, then the greater revision id.
    public static func ranksBefore(_ a: Node, _ b: Node) -> Bool {
        if a.isDeleted != b.isDeleted { return !a.isDeleted }
        return b.rev < a.rev
    }
}

extension RevisionTree {
    /// `latest=true`: the leaves descending from `rev` (just `rev` when it is a
    /// leaf), in winner order; empty when `rev` is not in the tree.
    public func latest(from rev: RevisionID) -> [RevisionID] {
        guard contains(rev) else { return [] }
        return leaves.filter { history(of: $0.rev).contains(rev) }.map(\.rev)
    }
}
