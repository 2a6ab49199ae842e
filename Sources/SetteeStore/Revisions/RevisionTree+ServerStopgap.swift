// STOPGAP for compiling the server before the store branch lands; removed at merge.
extension RevisionTree {
    public var leafNodes: [Node] {
        let parents = Set(nodes.values.compactMap(\.parent))
        return nodes.values.filter { !parents.contains($0.rev) }.sorted { a, b in
            if a.isDeleted != b.isDeleted { return !a.isDeleted }
            return a.rev > b.rev
        }
    }
    public var conflicts: [RevisionID] { leafNodes.dropFirst().filter { !$0.isDeleted }.map(\.rev) }
    public var deletedConflicts: [RevisionID] { leafNodes.dropFirst().filter { $0.isDeleted }.map(\.rev) }
    public func isLeaf(_ rev: RevisionID) -> Bool { leafNodes.contains { $0.rev == rev } }
    public func history(of rev: RevisionID) -> [RevisionID] {
        var out: [RevisionID] = []
        var current: RevisionID? = rev
        while let r = current { out.append(r); current = nodes[r]?.parent }
        return out
    }
    public func latest(from rev: RevisionID) -> [RevisionID] {
        leafNodes.filter { history(of: $0.rev).contains(rev) }.map(\.rev)
    }
}
extension AllDocsResult { public var offset: Int { 0 } }
