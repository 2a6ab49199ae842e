import Testing
@testable import SetteeStore
import SetteeTestSupport

/// Revision order as CouchDB has it (`couch_doc:parse_revid`, `couch_key_tree`),
/// checked against a reference model written from that rule alone: a suffix of
/// exactly 32 hex digits is compared as the 16 bytes it spells, any other as its
/// raw bytes, bytewise with a prefix first; the winner is the live leaf (else any
/// leaf) with the highest generation, then the highest suffix.
@Suite struct RevisionOrderPropertyTests {
    /// The example from the issue: CouchDB keeps the hex revision as the winner.
    @Test func hexDigestOutranksTextThatSortsAfterIt() throws {
        let hex = try #require(RevisionID("1-cb7879c05fc741b5a3537a1c73f603c2"))
        let text = try #require(RevisionID("1-conflict0097"))
        #expect(text < hex)
        #expect(!(hex < text))
        #expect(Reference.less(text, hex))
    }

    /// A short suffix that is a prefix of a longer one sorts first, as Erlang binaries do.
    @Test func aPrefixSortsFirst() throws {
        #expect(try #require(RevisionID("3-ab")) < #require(RevisionID("3-abc")))
        // 16 raw bytes beginning with the bytes a digest decodes to: the digest is the prefix.
        let digest = try #require(RevisionID("1-41414141414141414141414141414141"))  // "AAAAAAAAAAAAAAAA"
        let longer = try #require(RevisionID("1-AAAAAAAAAAAAAAAAx"))
        #expect(digest < longer)
        let same = try #require(RevisionID("1-AAAAAAAAAAAAAAAA"))
        #expect(!(digest < same) && !(same < digest))
    }

    /// Random pairs of every kind: `<` agrees with the model, and is a strict order.
    @Test func pairwiseOrderMatchesTheModel() {
        var random = SplitMix(state: 0x5E77EE)
        for _ in 0..<5000 {
            let a = Self.randomRev(&random), b = Self.randomRev(&random)
            #expect((a < b) == Reference.less(a, b), "\(a) vs \(b)")
            #expect(!((a < b) && (b < a)), "\(a) vs \(b)")
        }
    }

    /// Random documents of conflicting branches stored with new_edits=false: winner,
    /// `_conflicts`, `_deleted_conflicts` and the `_changes` leaves (all_docs order,
    /// winner first) agree with the model.
    @Test func storedDocumentsMatchTheModel() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        var random = SplitMix(state: 0xC0FFEE)
        var expected: [String: [(rev: RevisionID, deleted: Bool)]] = [:]
        for n in 0..<120 {
            let id = "doc\(n)"
            var leaves: [(rev: RevisionID, deleted: Bool)] = []
            let root = RevisionID(generation: 1, suffix: Self.randomSuffix(&random))
            for _ in 0..<Int.random(in: 2...4, using: &random) {
                let generation = Int.random(in: 2...3, using: &random)
                var history = [root]
                for g in 2...generation { history.insert(RevisionID(generation: g, suffix: Self.randomSuffix(&random)), at: 0) }
                guard !leaves.contains(where: { $0.rev == history[0] }) else { continue }
                let deleted = Int.random(in: 0..<4, using: &random) == 0
                _ = try await db.update([DocumentUpdate(id: id, body: bytes("{}"), isDeleted: deleted, history: history)],
                                        newEdits: false)[0].get()
                leaves.append((history[0], deleted))
            }
            expected[id] = leaves
        }
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        for change in changes {
            let model = Reference.winnerOrder(try #require(expected[change.id]))
            #expect(change.leaves == model.map(\.rev), "\(change.id)")
            let document = try #require(try await db.document(id: change.id, revisions: .winner))
            #expect(document.tree.winner?.rev == model.first?.rev, "\(change.id)")
            #expect(document.revisions.first?.rev == model.first?.rev, "\(change.id)")
            let rest = model.dropFirst()
            #expect(document.tree.conflicts == rest.filter { !$0.deleted }.map(\.rev), "\(change.id)")
            #expect(document.tree.deletedConflicts == rest.filter(\.deleted).map(\.rev), "\(change.id)")
        }
        #expect(changes.count == expected.count)
    }

    // MARK: Generators

    /// Hex digests, short and long texts, texts of exactly 16 bytes (a digest's
    /// decoded length) and texts sharing a digest's leading bytes.
    static func randomSuffix(_ random: inout SplitMix) -> String {
        let hex = Array("0123456789abcdef"), text = Array("abcdefxyz019-_")
        // Every suffix made here is a valid one (`RevisionID(generation:validating:)`).
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1: return String((0..<32).map { _ in hex.randomElement(using: &random)! })
        case 2:
            // 32 characters that are not all hex are no revision id (CouchDB: "Invalid rev format").
            let suffix = String((0..<Int.random(in: 1...40, using: &random)).map { _ in text.randomElement(using: &random)! })
            return RevisionID(generation: 1, validating: suffix) == nil ? suffix + "z" : suffix
        case 3: return String((0..<16).map { _ in text.randomElement(using: &random)! })
        default:
            // Starts with the characters whose codes a digest starting "6" or "7" decodes to.
            return String((0..<Int.random(in: 1...20, using: &random)).map { _ in Array("abcpqrs").randomElement(using: &random)! })
        }
    }

    static func randomRev(_ random: inout SplitMix) -> RevisionID {
        RevisionID(generation: Int.random(in: 1...2, using: &random), suffix: randomSuffix(&random))
    }
}

/// CouchDB's rule, written without `RevisionID.<`.
private enum Reference {
    static func storedForm(_ suffix: String) -> [UInt8] {
        let utf8 = Array(suffix.utf8)
        let digits = utf8.compactMap { byte -> UInt8? in
            switch byte {
            case 48...57: byte - 48
            case 97...102: byte - 87
            case 65...70: byte - 55
            default: nil
            }
        }
        guard utf8.count == 32, digits.count == 32 else { return utf8 }
        return stride(from: 0, to: 32, by: 2).map { digits[$0] * 16 + digits[$0 + 1] }
    }

    static func less(_ a: RevisionID, _ b: RevisionID) -> Bool {
        if a.generation != b.generation { return a.generation < b.generation }
        let x = storedForm(a.suffix), y = storedForm(b.suffix)
        for (p, q) in zip(x, y) where p != q { return p < q }
        return x.count < y.count
    }

    /// Leaves sorted as `couch_doc:to_doc_info_path` sorts them: descending by
    /// {not deleted, rev}.
    static func winnerOrder(_ leaves: [(rev: RevisionID, deleted: Bool)]) -> [(rev: RevisionID, deleted: Bool)] {
        leaves.sorted { a, b in
            if a.deleted != b.deleted { return !a.deleted }
            return less(b.rev, a.rev)
        }
    }
}
