internal import Logging
internal import Synchronization
internal import Dispatch
internal import FoundationEssentials

/// Opening a database's file: the fast path under the directory's short lock, the
/// file's I/O under its name's lock only (`OpenDatabases`).
extension DatabaseDirectory {
    /// The database if open or held elsewhere (marked used), else nil; closes what the
    /// cap then asks to close.
    func lookUp(_ name: String) -> Database? {
        let (database, victims) = registry.lookup(name)
        close(victims)
        return database
    }

    /// `create(_:)` for async callers, run on a thread of its own (SQLite's file creation,
    /// migration and fsyncs block; STYLE 17).
    public func create(named name: String) async throws -> Database {
        try await offThread { try self.create(name) }
    }

    /// `delete(_:)` for async callers, run on a thread of its own (closing, `unlink` and the
    /// blob directory's removal block).
    public func delete(named name: String) async throws {
        try await offThread { try self.delete(name) }
    }

    /// `work` on a dispatch thread, its result (or error) handed back to the caller.
    func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Opens the file of `name` if it exists (nil if not), under its name's lock.
    func openFile(_ name: String) throws -> Database? {
        try underNameLock(name) { slot in
            // Another caller may have opened it while this one waited for the name.
            if let database = lookUp(name) { return database }
            guard Self.isValidName(name), FileManager.default.fileExists(atPath: filePath(name)) else { return nil }
            return try openReserved(name, slot: slot)
        }
    }

    /// Runs `body` with `name`'s slot, under its lock.
    func underNameLock<T>(_ name: String, _ body: (OpenDatabases.Slot) throws -> T) rethrows -> T {
        let slot = registry.checkOut(name)
        defer { registry.checkIn(slot, name: name) }
        slot.nameLock.lock()
        defer { slot.nameLock.unlock() }
        return try body(slot)
    }

    /// Makes room under the cap, opens (or creates) the file and records it; under the name's lock.
    /// - Throws: `.allDatabasesActive` when no open database is idle; what opening throws.
    func openReserved(_ name: String, slot: OpenDatabases.Slot) throws -> Database {
        let victims: [Database]
        do {
            victims = try registry.reserve(name)
        } catch {
            if capLog.allows() {
                logger.warning("all open databases are busy: not opening another",
                               metadata: ["db": .string(name), "max_dbs_open": .stringConvertible(registry.capacity)])
            }
            throw error
        }
        close(victims)
        let database: Database
        do {
            let isChecked = checkedNames.withLock { $0.contains(name) }
            database = try Database(name: name, path: filePath(name), configuration: configuration, events: updates,
                                    tasks: tasks, logger: logger, isChecked: isChecked, winnerCache: winnerCache)
        } catch {
            registry.cancelReservation(name)
            throw error
        }
        _ = checkedNames.withLock { $0.insert(name) }
        database.opener.onReopen { [weak self, weak database] in
            guard let self, let database else { return }
            self.close(self.registry.reopened(database))
        }
        registry.publish(database, in: slot)
        return database
    }

    /// Closes the connections of databases the cap retired, once the work queued on each has run.
    func close(_ victims: [Database]) {
        for database in victims { database.closeWhenIdle() }
    }
}
