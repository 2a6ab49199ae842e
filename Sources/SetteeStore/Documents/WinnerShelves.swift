/// The entries of a `WinnerCache`, with no lock and no I/O: per database, the winning
/// revisions last read by id, and one least-recently-used order over all of them.
///
/// Invariants (kept by every mutating method):
/// - `bytes` is the sum of the live slots' `cost`, and never exceeds `budget` after a
///   method returns: an insert evicts the least recently used entries first.
/// - A live slot is in exactly one shelf's `slots` (its database's, under its id) and in
///   the recency list (`newer`/`older` links, `newest` … `oldest`); a free slot is in
///   neither, only in `freeSlots`.
/// - Each open database's shelf holds a generation: the commit count its entries are
///   current for (`WinnerCache` says how the writer and the readers use it).
///
/// The list links slots by their index in `slots`, so a hit moves an entry to the front
/// with a few integer writes and no allocation. The links are an array of their own, of
/// plain integers: a hit on one of 20,000 documents touches three entries of the list,
/// and within the slots (a string, a revision) each of those was a cache miss: the move
/// to the front was a third of a hit's samples under perf, and is a tenth now.
struct WinnerShelves {
    /// Bytes the entries may take in all.
    let budget: Int
    private(set) var bytes = 0
    private var slots: [Slot] = []
    /// The recency list, by slot index: `links[i]` is slot `i`'s place in it.
    private var links: [Link] = []
    private var freeSlots: [Int32] = []
    private var shelves: [Int: Shelf] = [:]
    private var newest: Int32 = -1
    private var oldest: Int32 = -1

    private struct Slot {
        var database: Int
        var id: String
        var revision: StoredRevision?
        var cost: Int
    }

    private struct Link {
        var newer: Int32 = -1
        var older: Int32 = -1
    }

    private struct Shelf {
        var generation: UInt64
        var slots: [String: Int32] = [:]
    }

    init(budget: Int) { self.budget = max(0, budget) }

    /// How many entries are kept.
    var count: Int { slots.count - freeSlots.count }

    /// What an entry is counted as: its body and attachments' bytes and a fixed share
    /// for the slot, the id and rev strings and the dictionary entry.
    static func cost(of revision: StoredRevision, id: String) -> Int {
        let attachments = revision.attachments.reduce(0) { $0 + 96 + $1.name.utf8.count + $1.contentType.utf8.count }
        return 160 + id.utf8.count + revision.rev.suffix.utf8.count + (revision.body?.count ?? 0) + attachments
    }

    /// Starts keeping entries for `database`, current at commit count `generation`.
    mutating func open(_ database: Int, generation: UInt64) {
        precondition(shelves[database] == nil, "a database's shelf is opened once")
        shelves[database] = Shelf(generation: generation)
    }

    /// Drops `database`'s entries and its shelf: later inserts for it are refused.
    mutating func close(_ database: Int) {
        removeEntries(of: database)
        shelves[database] = nil
    }

    /// Drops `database`'s entries; its shelf stays, at the same generation.
    mutating func removeEntries(of database: Int) {
        guard let ids = shelves[database]?.slots else { return }
        shelves[database]?.slots = [:]
        for index in ids.values { release(index) }
    }

    /// The entry for `id`, made the most recently used; nil when none is kept.
    mutating func revision(_ database: Int, id: String) -> StoredRevision? {
        guard let index = shelves[database]?.slots[id] else { return nil }
        unlink(index)
        pushNewest(index)
        return slots[Int(index)].revision
    }

    /// Keeps `revision` as `id`'s winner if `database` is still at commit count
    /// `generation` (the one the read's snapshot began at) and the entry is at most a
    /// sixteenth of the budget; evicts the least recently used entries to make room.
    /// - Returns: whether it is kept.
    @discardableResult
    mutating func insert(_ revision: StoredRevision, _ database: Int, id: String, readAt generation: UInt64) -> Bool {
        guard let shelf = shelves[database], shelf.generation == generation else { return false }
        let cost = Self.cost(of: revision, id: id)
        guard cost <= budget / 16 else { return false }
        if let existing = shelf.slots[id] {
            shelves[database]?.slots[id] = nil
            release(existing)
        }
        while bytes + cost > budget, oldest >= 0 { evictOldest() }
        let slot = Slot(database: database, id: id, revision: revision, cost: cost)
        let index: Int32
        if let free = freeSlots.popLast() {
            index = free
            slots[Int(index)] = slot
        } else {
            index = Int32(slots.count)
            slots.append(slot)
            links.append(Link())
        }
        pushNewest(index)
        bytes += cost
        shelves[database]?.slots[id] = index
        return true
    }

    /// A commit of `database` that changed `changed` is about to be published as commit
    /// count `generation`: their entries go, and only reads of that count may insert.
    mutating func commit(_ database: Int, changed: ChangedDocuments, generation: UInt64) {
        guard shelves[database] != nil else { return }
        shelves[database]?.generation = generation
        switch changed {
        case .all: removeEntries(of: database)
        case .ids(let ids):
            for id in ids {
                guard let index = shelves[database]?.slots.removeValue(forKey: id) else { continue }
                release(index)
            }
        }
    }

    // MARK: The recency list

    private mutating func evictOldest() {
        let index = oldest
        let slot = slots[Int(index)]
        shelves[slot.database]?.slots[slot.id] = nil
        release(index)
    }

    /// Unlinks a live slot and frees it (its shelf no longer names it).
    private mutating func release(_ index: Int32) {
        unlink(index)
        bytes -= slots[Int(index)].cost
        slots[Int(index)] = Slot(database: 0, id: "", revision: nil, cost: 0)
        freeSlots.append(index)
    }

    private mutating func unlink(_ index: Int32) {
        let link = links[Int(index)]
        if link.newer >= 0 { links[Int(link.newer)].older = link.older } else { newest = link.older }
        if link.older >= 0 { links[Int(link.older)].newer = link.newer } else { oldest = link.newer }
        links[Int(index)] = Link()
    }

    private mutating func pushNewest(_ index: Int32) {
        links[Int(index)] = Link(newer: -1, older: newest)
        if newest >= 0 { links[Int(newest)].newer = index } else { oldest = index }
        newest = index
    }
}

/// Which documents a commit changed, for the `WinnerCache` entries it must remove.
enum ChangedDocuments: Sendable {
    /// Any of them, or ones it cannot name (compaction, purge, `_revs_limit`, a job that did not say).
    case all
    /// Only these ids (a document write names the ids it was given).
    case ids([String])

    /// What a transaction of several jobs changed.
    init(_ parts: some Sequence<ChangedDocuments>) {
        var ids: [String] = []
        for part in parts {
            guard case .ids(let more) = part else { self = .all; return }
            ids += more
        }
        self = .ids(ids)
    }
}
