/*
 WaiterTable: the suspended waits of a `ChangesNotifier`, in an array of slots
 instead of a dictionary keyed by id.

 Why: a write to a database with 10,000 idle feeds removes all 10,000 waiters and
 each feed registers a new one right after. In a `[UInt64: Waiter]` each of those
 is a hash, and each removal shifts its neighbours back (Swift's open addressing
 with backward-shift deletion): 16 % of the server's CPU during such a fan-out
 (bench/RESULTS.md, "10,000 idle feeds"). Here an id names its slot, so taking a
 waiter out is an index and a comparison, and a freed slot is reused by the next
 registration (a free list, most recently freed first).

 An id is (slot index, serial). Serials are unique for the table's lifetime, so an
 id whose slot was freed and taken again no longer matches it: a late `remove` of
 an id that a wake-up already took (a cancellation racing the wake-up) finds
 nothing, and can never take the slot's new occupant.

 A slot is in one of three states:
   free        serial 0, no waiter, its index in `freeSlots`
   reserved    serial set, no waiter: the id exists, the continuation not yet
               (between `reserve()` and `register`; `release` frees it if the wait
               ends before registering)
   waiting     serial set, a waiter: counted in `count`
*/

/// The registered waits of one notifier, addressed by `WaiterTable.ID`.
struct WaiterTable<Waiter> {
    /// Names one reservation of one slot; never reused.
    struct ID: Hashable, Sendable {
        fileprivate let index: Int
        fileprivate let serial: UInt64
    }

    private struct Slot {
        var serial: UInt64 = 0
        var waiter: Waiter?
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var lastSerial: UInt64 = 0
    /// Waiters registered (reservations not counted).
    private(set) var count = 0

    /// A new id whose slot is held until `register` fills it or `release` frees it.
    mutating func reserve() -> ID {
        lastSerial &+= 1
        let index: Int
        if let free = freeSlots.popLast() {
            index = free
        } else {
            index = slots.count
            slots.append(Slot())
        }
        slots[index].serial = lastSerial
        return ID(index: index, serial: lastSerial)
    }

    /// Puts `waiter` in the slot `id` reserved.
    mutating func register(_ id: ID, _ waiter: Waiter) {
        precondition(slots[id.index].serial == id.serial && slots[id.index].waiter == nil,
                     "WaiterTable: register without a live reservation")
        slots[id.index].waiter = waiter
        count += 1
    }

    /// Frees the slot of a reservation that never registered.
    mutating func release(_ id: ID) {
        guard holds(id), slots[id.index].waiter == nil else { return }
        free(id.index)
    }

    /// Takes the waiter `id` names out of the table, or nil when it is not there
    /// (never registered, or taken already).
    mutating func remove(_ id: ID) -> Waiter? {
        guard holds(id), let waiter = slots[id.index].waiter.take() else { return nil }
        count -= 1
        free(id.index)
        return waiter
    }

    /// The ids of the registered waiters that `pick` accepts, in slot order; `pick`
    /// may change a waiter it accepts (e.g. mark it queued).
    mutating func select(_ pick: (inout Waiter) -> Bool) -> [ID] {
        var ids: [ID] = []
        for index in slots.indices {
            // Moved out and back: a copy would retain what the waiter holds (a
            // continuation's box), once a waiter for every write.
            guard var waiter = slots[index].waiter.take() else { continue }
            let isPicked = pick(&waiter)
            slots[index].waiter = consume waiter
            if isPicked { ids.append(ID(index: index, serial: slots[index].serial)) }
        }
        return ids
    }

    /// Calls `body` with every registered waiter and its id, in slot order.
    func forEach(_ body: (ID, Waiter) -> Void) {
        for index in slots.indices {
            if let waiter = slots[index].waiter { body(ID(index: index, serial: slots[index].serial), waiter) }
        }
    }

    /// Whether `id`'s slot is still its own (the storage may have been given back since).
    private func holds(_ id: ID) -> Bool {
        id.index < slots.count && slots[id.index].serial == id.serial
    }

    private mutating func free(_ index: Int) {
        slots[index].serial = 0
        freeSlots.append(index)
        if count == 0, freeSlots.count == slots.count, slots.count > 64 {
            // Every feed went: give back the storage a burst of them grew.
            slots = []
            freeSlots = []
        }
    }
}
