@testable import SetteeStore
import Testing

/// The notifier's slot table: every registered waiter comes out exactly once, and an
/// id that was taken already never takes the next occupant of its slot.
@Suite struct WaiterTableTests {
    private struct Waiter {
        var name: Int
        var isQueued = false
    }

    @Test func everyWaiterComesOutOnceWhateverTheOrder() {
        var table = WaiterTable<Waiter>()
        var ids: [WaiterTable<Waiter>.ID] = []
        for name in 0..<1_000 {
            let id = table.reserve()
            table.register(id, Waiter(name: name))
            ids.append(id)
        }
        #expect(table.count == 1_000)
        var seen = Set<Int>()
        for id in ids.shuffled() {
            guard let waiter = table.remove(id) else { Issue.record("a registered waiter was lost"); continue }
            #expect(seen.insert(waiter.name).inserted, "waiter \(waiter.name) came out twice")
        }
        #expect(seen.count == 1_000)
        #expect(table.count == 0)
        #expect(ids.allSatisfy { table.remove($0) == nil })
    }

    /// A cancellation that arrives after a wake-up took its waiter must find nothing,
    /// even when a new wait has taken the freed slot meanwhile.
    @Test func aStaleIdNeverTakesTheSlotsNextOccupant() {
        var table = WaiterTable<Waiter>()
        let first = table.reserve()
        table.register(first, Waiter(name: 1))
        #expect(table.remove(first)?.name == 1)
        let second = table.reserve()
        table.register(second, Waiter(name: 2))
        #expect(table.remove(first) == nil)
        #expect(table.count == 1)
        #expect(table.remove(second)?.name == 2)
    }

    @Test func aReservationThatNeverRegisteredIsReleased() {
        var table = WaiterTable<Waiter>()
        let reserved = table.reserve()
        #expect(table.remove(reserved) == nil)  // a cancellation before registering
        #expect(table.count == 0)
        table.release(reserved)
        let next = table.reserve()
        table.register(next, Waiter(name: 7))
        table.release(next)  // registered: release leaves it alone
        #expect(table.remove(next)?.name == 7)
    }

    @Test func selectMarksOnlyWhatItPicks() {
        var table = WaiterTable<Waiter>()
        for name in 0..<100 {
            table.register(table.reserve(), Waiter(name: name))
        }
        let pick: (inout Waiter) -> Bool = { waiter in
            guard waiter.name % 3 == 0, !waiter.isQueued else { return false }
            waiter.isQueued = true
            return true
        }
        let picked = table.select(pick)
        #expect(picked.count == 34)
        #expect(table.select(pick).isEmpty)  // marked the first time
        #expect(picked.compactMap { table.remove($0)?.name }.allSatisfy { $0 % 3 == 0 })
        var left = 0
        table.forEach { _, waiter in
            #expect(!waiter.isQueued)
            left += 1
        }
        #expect(left == 66)
        #expect(table.count == 66)
    }
}
