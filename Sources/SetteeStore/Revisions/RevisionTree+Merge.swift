/// Merging replicated paths and stemming.
///
/// Merge (`new_edits=false`): the incoming path is `[rev, parent, ..., oldest]`.
/// Walking it from the newest, every revision up to the first one already in
/// the tree is new; those are added oldest first, each the child of the next
/// older one, the oldest new one attached to the known revision (or a new root
/// when none of the path is known). Only the path's first revision can carry
/// a body or be deleted; the ancestors are recorded bodiless, as CouchDB does.
///
/// Stemming (`_revs_limit`): every leaf keeps its `limit` newest ancestors
/// (itself included); a revision kept by no leaf is dropped, and a kept
/// revision whose parent is dropped becomes a root.
extension RevisionTree {
    /// The revisions of `path` (newest first) the tree lacks, oldest first.
    public func missing(inPath path: [RevisionID]) -> [RevisionID] {
        var missing: [RevisionID] = []
        for rev in path {
            if contains(rev) { break }
            missing.append(rev)
        }
        return missing.reversed()
    }

    /// Merges `path` (newest first) into the tree.
    /// - Returns: the nodes added, oldest first (the path's newest revision last);
    ///   empty when the tree already had `path[0]`. Sequences are `sequence`.
    @discardableResult
    public mutating func merge(path: [RevisionID], isDeleted: Bool, hasBody: Bool,
                               sequence: Int64 = 0) -> [Node] {
        let added = missing(inPath: path)
        guard !added.isEmpty else { return [] }
        var parent: RevisionID? = path.count > added.count ? path[added.count] : nil
        var nodes: [Node] = []
        for (index, rev) in added.enumerated() {
            let isLeaf = index == added.count - 1
            let node = Node(rev: rev, parent: parent, isDeleted: isLeaf && isDeleted,
                            sequence: sequence, hasBody: isLeaf && hasBody)
            insert(node)
            nodes.append(node)
            parent = rev
        }
        return nodes
    }

    /// What stemming to a limit does: the revisions dropped and the kept ones that become roots.
    public struct Stemming: Sendable, Equatable {
        public var dropped: Set<RevisionID> = []
        public var newRoots: Set<RevisionID> = []
    }

    /// What stemming to `limit` would do, without doing it.
    ///
    /// As CouchDB's `couch_key_tree:stem` (paths stemmed one by one, then merged
    /// again), a parent link survives only when some leaf's window holds both
    /// ends of it; otherwise the child becomes a root even if its parent is kept
    /// by another leaf. So every leaf's history is at most `limit` long.
    public func stemming(to limit: Int) -> Stemming {
        precondition(limit >= 1, "revs_limit is at least 1")
        // No path can be longer than the whole tree: nothing to drop and, with every
        // history whole, every kept parent link lies inside some leaf's window.
        guard nodes.count > limit else { return Stemming() }
        var kept = Set<RevisionID>()
        var linked = Set<RevisionID>()
        for leaf in leaves {
            let window = history(of: leaf.rev).prefix(limit)
            kept.formUnion(window)
            linked.formUnion(window.dropLast())
        }
        var result = Stemming(dropped: Set(nodes.keys).subtracting(kept))
        for rev in kept where !linked.contains(rev) && nodes[rev]?.parent != nil {
            result.newRoots.insert(rev)
        }
        return result
    }

    /// Stems every path to at most `limit` revisions.
    /// - Returns: the dropped revisions and the new roots.
    @discardableResult
    public mutating func stem(to limit: Int) -> Stemming {
        let result = stemming(to: limit)
        for rev in result.dropped { remove(rev) }
        for rev in result.newRoots {
            guard let node = nodes[rev] else { continue }
            insert(Node(rev: node.rev, parent: nil, isDeleted: node.isDeleted,
                        sequence: node.sequence, hasBody: node.hasBody))
        }
        return result
    }
}
