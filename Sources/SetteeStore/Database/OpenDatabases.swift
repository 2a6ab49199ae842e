/*
 The directory's book of databases by name: which are open, which were used last,
 and the lock of each name. `DatabaseDirectory` does the I/O; this only counts.

 A name's `Slot` holds its `Database` strongly while it counts as open, and weakly once
 the directory closed its connections for being idle (`retired`): a handle kept
 elsewhere (a `_changes` feed, a replication, a request in flight) stays the one object
 for that file, and a lookup hands it out again rather than open a second writer on the
 same file. Nobody else holding it, the object goes, and the next lookup opens the file
 anew (`DatabaseDirectory`: 1.5 ms of CPU, bench/RESULTS.md "Many databases").

 The cap (`[couchdb] max_dbs_open`) counts user databases; system ones (`_users`,
 `_replicator`, names starting with `_`) are neither counted nor closed, as CouchDB's
 couch_server makes no room for a `sys_db`. Making room closes the least recently used
 database that is idle (`Database.isIdle`), as couch_lru closes the oldest idle one;
 when every open one is busy, opening another fails with `.allDatabasesActive` (CouchDB:
 `all_dbs_active`). A database handed out again, or one whose handle opened a
 connection again, counts as open even past the cap: it is in use already.

 Lock order: a name's lock, then `lock`; `lock` is held for bookkeeping only, never
 across I/O or while waiting for a name.
*/

/// The open databases, their recency, and the lock of each name.
final class OpenDatabases: @unchecked Sendable {
    // @unchecked: every stored property (and every Slot's, but `nameLock`) only under `lock`.
    final class Slot {
        /// Held across the name's I/O: opening, creating, deleting its file.
        let nameLock = Lock()
        var database: Database?
        weak var retired: Database?
        var lastUsed: UInt64 = 0
        /// Callers between `checkOut` and `checkIn`: the slot stays while any is there.
        var users = 0
    }

    let capacity: Int
    private let lock = Lock()
    private var slots: [String: Slot] = [:]
    /// The slots of open user databases (those the cap counts).
    private var counted: [String: Slot] = [:]
    /// Room taken for databases being opened or created, not yet published.
    private var reserved = 0
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    static func isSystem(_ name: String) -> Bool { name.hasPrefix("_") }

    /// Open databases (user and system), for `_stats` and `_system`.
    var openCount: Int { lock.withLock { slots.values.filter { $0.database != nil }.count } }

    /// The database `name` if open or still held elsewhere, marked used, with the
    /// databases to close to make room for it (close them after this returns).
    func lookup(_ name: String) -> (database: Database?, victims: [Database]) {
        lock.withLock {
            guard let slot = slots[name] else { return (nil, []) }
            return promote(slot, name: name, database: slot.database ?? slot.retired)
        }
    }

    /// The handle `database` opened a connection again after an idle close: it counts as open.
    func reopened(_ database: Database) -> [Database] {
        lock.withLock {
            guard let slot = slots[database.name], slot.database === database || slot.retired === database else {
                return []
            }
            return promote(slot, name: database.name, database: database).victims
        }
    }

    /// The slot of `name`, kept until `checkIn`: take its `nameLock` for I/O.
    func checkOut(_ name: String) -> Slot {
        lock.withLock {
            let slot = slots[name] ?? Slot()
            slots[name] = slot
            slot.users += 1
            return slot
        }
    }

    func checkIn(_ slot: Slot, name: String) {
        lock.withLock {
            slot.users -= 1
            forgetIfUnused(slot, name: name)
        }
    }

    /// Room for one more open database, closing the least recently used idle one if the
    /// cap is reached (returned: close it after this returns).
    /// - Throws: `.allDatabasesActive` when every open database is busy.
    func reserve(_ name: String) throws -> [Database] {
        guard !Self.isSystem(name) else { return [] }
        return try lock.withLock {
            var victims: [Database] = []
            if counted.count + reserved >= capacity {
                guard let victim = leastRecentlyUsedIdle() else { throw StoreError.allDatabasesActive(limit: capacity) }
                victims.append(victim)
            }
            reserved += 1
            return victims
        }
    }

    /// Gives back room `reserve` took, for a database that did not open.
    func cancelReservation(_ name: String) {
        guard !Self.isSystem(name) else { return }
        lock.withLock { reserved -= 1 }
    }

    /// Records `database`, opened or created under its name's lock with room reserved.
    func publish(_ database: Database, in slot: Slot) {
        lock.withLock {
            if !Self.isSystem(database.name) {
                reserved -= 1
                counted[database.name] = slot
            }
            slot.database = database
            slot.retired = nil
            clock += 1
            slot.lastUsed = clock
            // Now and then, the slots of closed databases nobody held any more.
            if clock % 4096 == 0 {
                for (name, slot) in slots where slot.database == nil { forgetIfUnused(slot, name: name) }
            }
        }
    }

    /// Forgets `name` (deleted): its database, open or held elsewhere, is returned to close for good.
    func remove(_ name: String, slot: Slot) -> Database? {
        lock.withLock {
            let database = slot.database ?? slot.retired
            slot.database = nil
            slot.retired = nil
            counted[name] = nil
            return database
        }
    }

    /// Forgets every database; returns them (held elsewhere ones too) to close for good.
    func removeAll() -> [Database] {
        lock.withLock {
            let all = slots.values.compactMap { $0.database ?? $0.retired }
            for (name, slot) in slots {
                slot.database = nil
                slot.retired = nil
                forgetIfUnused(slot, name: name)
            }
            counted = [:]
            return all
        }
    }

    // MARK: Under `lock`

    private func promote(_ slot: Slot, name: String, database: Database?) -> (database: Database?, victims: [Database]) {
        guard let database else {
            forgetIfUnused(slot, name: name)
            return (nil, [])
        }
        clock += 1
        slot.lastUsed = clock
        guard slot.database == nil else { return (database, []) }
        slot.database = database
        slot.retired = nil
        guard !Self.isSystem(name) else { return (database, []) }
        counted[name] = slot
        var victims: [Database] = []
        while counted.count + reserved > capacity, let victim = leastRecentlyUsedIdle(sparing: name) {
            victims.append(victim)
        }
        return (database, victims)
    }

    /// Retires the least recently used idle open user database (no longer counted) and returns it.
    private func leastRecentlyUsedIdle(sparing spared: String? = nil) -> Database? {
        var oldest: (name: String, slot: Slot, database: Database)?
        for (name, slot) in counted where name != spared && slot.lastUsed < (oldest?.slot.lastUsed ?? .max) {
            if let database = slot.database, database.isIdle { oldest = (name, slot, database) }
        }
        guard let oldest else { return nil }
        counted[oldest.name] = nil
        oldest.slot.database = nil
        oldest.slot.retired = oldest.database
        return oldest.database
    }

    private func forgetIfUnused(_ slot: Slot, name: String) {
        if slot.users == 0, slot.database == nil, slot.retired == nil, slots[name] === slot { slots[name] = nil }
    }
}
