@testable import SetteeStore
import Testing

// `revision(_:id:)` and `insert` are mutating (a hit moves the entry to the front), so
// their results are taken before each `#expect`.
@Suite struct WinnerShelvesTests {
    func revision(_ text: String, body: Int = 10) -> StoredRevision {
        StoredRevision(rev: rev(text), isDeleted: false, sequence: 1, body: Array(repeating: 0x20, count: body))
    }

    /// The budget holds after every insert, the least recently used entry going first:
    /// one just read stays, the one read longest ago is gone.
    @Test func evictsTheLeastRecentlyUsedWithinTheBudget() {
        let entry = WinnerShelves.cost(of: revision("1-a"), id: "d0")
        // Room for 16 entries (ids of two and three characters), not 17.
        var shelves = WinnerShelves(budget: entry * 16 + 64)
        shelves.open(1, generation: 0)
        for n in 0..<16 {
            let isKept = shelves.insert(revision("1-a"), 1, id: "d\(n)", readAt: 0)
            #expect(isKept)
        }
        #expect(shelves.count == 16 && shelves.bytes == entry * 16 + 6)
        let touched = shelves.revision(1, id: "d0")  // now the most recently used
        let isNewKept = shelves.insert(revision("1-a"), 1, id: "d16", readAt: 0)
        #expect(touched != nil && isNewKept)
        #expect(shelves.bytes <= shelves.budget && shelves.count == 16)
        let stayed = shelves.revision(1, id: "d0"), evicted = shelves.revision(1, id: "d1")
        #expect(stayed != nil && evicted == nil)
        for n in 17..<100 { shelves.insert(revision("1-a"), 1, id: "d\(n)", readAt: 0) }
        #expect(shelves.bytes <= shelves.budget && shelves.count == 16)
        let newest = shelves.revision(1, id: "d99")
        #expect(newest != nil)
    }

    /// One budget over every database; an entry larger than a sixteenth of it is not kept.
    @Test func oneBudgetOverAllDatabasesAndNoGiantEntries() {
        let entry = WinnerShelves.cost(of: revision("1-a"), id: "d0")
        var shelves = WinnerShelves(budget: entry * 32)
        for database in 0..<100 {
            shelves.open(database, generation: 0)
            for n in 0..<10 { shelves.insert(revision("1-a"), database, id: "d\(n)", readAt: 0) }
            #expect(shelves.bytes <= shelves.budget)
        }
        #expect(shelves.count == 32)
        let isGiantKept = shelves.insert(revision("1-a", body: entry * 2), 99, id: "big", readAt: 0)
        #expect(!isGiantKept)
        var none = WinnerShelves(budget: 0)
        none.open(1, generation: 0)
        let isKeptWithNoBudget = none.insert(revision("1-a"), 1, id: "a", readAt: 0)
        #expect(!isKeptWithNoBudget && none.count == 0)
    }

    /// A commit moves the generation: its ids go, other entries stay, and a read of an
    /// older snapshot is refused.
    @Test func aCommitRemovesItsIdsAndRefusesOlderReads() {
        var shelves = WinnerShelves(budget: 1 << 20)
        shelves.open(1, generation: 0)
        shelves.open(2, generation: 0)
        shelves.insert(revision("1-a"), 1, id: "a", readAt: 0)
        shelves.insert(revision("1-b"), 1, id: "b", readAt: 0)
        shelves.insert(revision("1-a"), 2, id: "a", readAt: 0)
        shelves.commit(1, changed: .ids(["a"]), generation: 1)
        let changed = shelves.revision(1, id: "a"), unchanged = shelves.revision(1, id: "b")
        let otherDatabase = shelves.revision(2, id: "a")
        #expect(changed == nil && unchanged?.rev == rev("1-b") && otherDatabase != nil)
        let isOldReadKept = shelves.insert(revision("1-a"), 1, id: "a", readAt: 0)
        let isNewReadKept = shelves.insert(revision("2-a"), 1, id: "a", readAt: 1)
        #expect(!isOldReadKept && isNewReadKept)
        shelves.commit(1, changed: .all, generation: 2)
        let a = shelves.revision(1, id: "a"), b = shelves.revision(1, id: "b")
        #expect(a == nil && b == nil && shelves.count == 1)
    }

    /// A closed database's entries go and it takes no more; an idle one's go but it
    /// takes new ones at the same generation.
    @Test func closedAndIdleDatabasesDropTheirEntries() {
        var shelves = WinnerShelves(budget: 1 << 20)
        shelves.open(1, generation: 0)
        shelves.open(2, generation: 0)
        shelves.insert(revision("1-a"), 1, id: "a", readAt: 0)
        shelves.insert(revision("1-a"), 2, id: "a", readAt: 0)
        shelves.close(1)
        #expect(shelves.count == 1)
        let isKeptWhenClosed = shelves.insert(revision("1-a"), 1, id: "a", readAt: 0)
        #expect(!isKeptWhenClosed)
        shelves.removeEntries(of: 2)
        #expect(shelves.count == 0 && shelves.bytes == 0)
        let isKeptAfterIdle = shelves.insert(revision("1-a"), 2, id: "a", readAt: 0)
        #expect(isKeptAfterIdle)
    }

    @Test func aTransactionOfSeveralJobsChangesTheirUnion() {
        guard case .ids(let ids) = ChangedDocuments([.ids(["a"]), .ids(["b", "c"])]) else {
            Issue.record("ids expected")
            return
        }
        #expect(ids == ["a", "b", "c"])
        guard case .all = ChangedDocuments([.ids(["a"]), .all]) else {
            Issue.record("all expected")
            return
        }
    }
}
