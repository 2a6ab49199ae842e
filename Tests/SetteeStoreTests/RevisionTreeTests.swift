import SetteeTestSupport
import Testing
@testable import SetteeStore

/// A node with no sequence and a body, for building trees by hand.
private func node(_ text: String, parent: String? = nil, deleted: Bool = false) -> RevisionTree.Node {
    RevisionTree.Node(rev: rev(text), parent: parent.map(rev), isDeleted: deleted, sequence: 0, hasBody: true)
}

private func randomPaths(_ generator: inout SplitMix) -> [[RevisionID]] {
    (0..<Int.random(in: 1...6, using: &generator)).map { _ in
        let length = Int.random(in: 1...8, using: &generator)
        let forkAt = Int.random(in: 1...length, using: &generator)
        let branch = ["b", "c", "d"].randomElement(using: &generator) ?? "b"
        return (1...length).reversed().map { generation in
            let suffix = generation <= forkAt ? "a" : "\(branch)\(forkAt)-"
            return RevisionID(generation: generation, suffix: suffix + String(generation))
        }
    }
}

@Test func winnerPrefersLiveThenGenerationThenSuffix() {
    var tree = RevisionTree(nodes: [node("1-a"), node("2-b", parent: "1-a"), node("2-c", parent: "1-a"),
                                    node("3-d", parent: "2-b", deleted: true)])
    #expect(tree.winner?.rev == rev("2-c"))
    #expect(tree.conflicts.isEmpty)
    #expect(tree.deletedConflicts == [rev("3-d")])
    tree.insert(node("2-e", parent: "1-a"))
    #expect(tree.winner?.rev == rev("2-e"))
    #expect(tree.conflicts == [rev("2-c")])
    #expect(tree.leaves.map(\.rev) == [rev("2-e"), rev("2-c"), rev("3-d")])
}

@Test func allDeletedLeavesPickHighestDeleted() {
    let tree = RevisionTree(nodes: [node("1-a"), node("2-b", parent: "1-a", deleted: true),
                                    node("3-c", parent: "2-b", deleted: true)])
    #expect(tree.winner?.rev == rev("3-c"))
    #expect(tree.winner?.isDeleted == true)
}

@Test func historyAndLeaves() {
    let tree = RevisionTree(nodes: [node("1-a"), node("2-b", parent: "1-a"), node("3-c", parent: "2-b")])
    #expect(tree.history(of: rev("3-c")) == [rev("3-c"), rev("2-b"), rev("1-a")])
    #expect(tree.history(of: rev("9-z")).isEmpty)
    #expect(tree.isLeaf(rev("3-c")))
    #expect(!tree.isLeaf(rev("2-b")))
}

@Test func mergeAttachesToKnownAncestor() {
    var tree = RevisionTree(nodes: [node("1-a"), node("2-b", parent: "1-a")])
    let added = tree.merge(path: [rev("4-d"), rev("3-c"), rev("2-b"), rev("1-a")], isDeleted: false, hasBody: true)
    #expect(added.map(\.rev) == [rev("3-c"), rev("4-d")])
    #expect(added[0].parent == rev("2-b") && !added[0].hasBody)
    #expect(tree.leaves.map(\.rev) == [rev("4-d")])
    #expect(tree.merge(path: [rev("4-d")], isDeleted: false, hasBody: true).isEmpty)
}

@Test func stemmingKeepsLimitPerLeaf() {
    var tree = RevisionTree()
    tree.merge(path: (1...10).reversed().map { RevisionID(generation: $0, suffix: "x\($0)") },
               isDeleted: false, hasBody: true)
    let dropped = tree.stem(to: 3)
    #expect(dropped.dropped.count == 7)
    #expect(tree.history(of: RevisionID(generation: 10, suffix: "x10")).count == 3)
    #expect(tree.node(RevisionID(generation: 8, suffix: "x8"))?.parent == nil)
}

@Test func mergeOrderDoesNotMatter() {
    var generator = SplitMix(state: 42)
    for _ in 0..<200 {
        let paths = randomPaths(&generator)
        var forward = RevisionTree()
        for path in paths { forward.merge(path: path, isDeleted: path.count % 3 == 0, hasBody: true) }
        var backward = RevisionTree()
        for path in paths.reversed() { backward.merge(path: path, isDeleted: path.count % 3 == 0, hasBody: true) }
        #expect(Set(forward.nodes.keys) == Set(backward.nodes.keys))
        #expect(Set(forward.leaves.map(\.rev)) == Set(backward.leaves.map(\.rev)))
        #expect(forward.winner?.rev == backward.winner?.rev)
    }
}

@Test func winnerIsDeterministicAndALeaf() {
    var generator = SplitMix(state: 7)
    for _ in 0..<200 {
        var tree = RevisionTree()
        for path in randomPaths(&generator) { tree.merge(path: path, isDeleted: false, hasBody: true) }
        guard let winner = tree.winner else { Issue.record("empty tree"); continue }
        #expect(tree.isLeaf(winner.rev))
        #expect(tree.leaves.allSatisfy { $0.rev <= winner.rev || $0.isDeleted })
        #expect(RevisionTree(nodes: Array(tree.nodes.values).reversed()).winner?.rev == winner.rev)
    }
}

@Test func stemmingIsBounded() {
    var generator = SplitMix(state: 99)
    for _ in 0..<200 {
        var tree = RevisionTree()
        for path in randomPaths(&generator) { tree.merge(path: path, isDeleted: false, hasBody: true) }
        let leavesBefore = Set(tree.leaves.map(\.rev))
        let limit = Int.random(in: 1...5, using: &generator)
        tree.stem(to: limit)
        #expect(Set(tree.leaves.map(\.rev)) == leavesBefore)
        // CouchDB stems each path, then merges the paths again, so shared nodes can
        // leave a leaf's history longer than the limit; what is bounded is the
        // node count, and every node is within `limit` of some leaf.
        let near = Set(tree.leaves.flatMap { tree.history(of: $0.rev).prefix(limit) })
        #expect(Set(tree.nodes.keys) == near)
        #expect(tree.nodes.count <= tree.leaves.count * limit)
        #expect(tree.leaves.allSatisfy { tree.history(of: $0.rev).count >= min(limit, $0.rev.generation) })
    }
}

/// Rev ids must never change between versions: peers compare them. Expected values
/// are Apache CouchDB 3.4.3's answers for the same edits (conformance/test_revision_ids.py).
@Test func childRevisionIDsAreStable() {
    #expect(RevisionHasher.child(of: nil, isDeleted: false, body: Array(#"{"a":1}"#.utf8)).description
            == "1-23202479633c2b380f79507a776743d5")
    #expect(RevisionHasher.child(of: nil, isDeleted: false, body: Array(#"{"x":1}"#.utf8)).description
            == "1-0785e9eb543380151003dc452c3a001a")
    #expect(RevisionHasher.child(of: rev("1-0785e9eb543380151003dc452c3a001a"), isDeleted: false,
                                 body: Array(#"{"x":2}"#.utf8)).description == "2-8c49edca19d786e747fb5bea32c4cb91")
    #expect(RevisionHasher.child(of: rev("2-8c49edca19d786e747fb5bea32c4cb91"), isDeleted: true,
                                 body: Array("{}".utf8)).description == "3-fb567087695adb203ba116e130794a84")
}

@Test func stemmingASmallTreeChangesNothing() {
    var tree = RevisionTree()
    tree.insert(.init(rev: rev("1-a"), parent: nil, isDeleted: false, sequence: 1, hasBody: false))
    tree.insert(.init(rev: rev("2-b"), parent: rev("1-a"), isDeleted: false, sequence: 2, hasBody: true))
    tree.insert(.init(rev: rev("2-c"), parent: rev("1-a"), isDeleted: false, sequence: 3, hasBody: true))
    #expect(tree.stemming(to: 3) == RevisionTree.Stemming())
    #expect(tree.stemming(to: 1).dropped == [rev("1-a")])
}
