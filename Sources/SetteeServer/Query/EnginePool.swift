/// The idle engines of every design document the service ran code of, with their
/// compiled functions (`JavaScriptService`). A value under the service's lock: checking
/// out takes an engine away so one call at a time uses it; checking in keeps it for the
/// next call of the same design document, releasing the least recently used engines
/// past the limit. Engines of a database that is gone are released as they are met.
struct EnginePool {
    private final class Entry {
        /// Weak: a deleted and recreated database is another object, never this one again.
        weak var database: AnyObject?
        var idle: [CompiledEngine] = []
        var lastUse: UInt64 = 0
        /// Functions known to compile (a view query checks without a call).
        var compiles: Set<String> = []

        init(_ database: AnyObject) { self.database = database }
    }

    private var entries: [DesignCodeKey: Entry] = [:]
    private var clock: UInt64 = 0
    private(set) var idleCount = 0

    /// An idle engine of `key` in `database`, nil when none is kept.
    mutating func checkOut(_ key: DesignCodeKey, database: AnyObject) -> CompiledEngine? {
        guard let entry = entry(key, database), let engine = entry.idle.popLast() else { return nil }
        idleCount -= 1
        clock += 1
        entry.lastUse = clock
        return engine
    }

    /// Keeps `engine` for `key`; returns the engines released to stay within `limit`
    /// (the caller drops them outside the lock).
    mutating func checkIn(_ engine: CompiledEngine, _ key: DesignCodeKey, database: AnyObject,
                          limit: Int) -> [CompiledEngine] {
        let entry = self.entry(key, database) ?? {
            let made = Entry(database)
            entries[key] = made
            return made
        }()
        clock += 1
        entry.lastUse = clock
        entry.idle.append(engine)
        idleCount += 1
        var released: [CompiledEngine] = []
        while idleCount > limit, let oldest = entries.filter({ !$0.value.idle.isEmpty })
            .min(by: { $0.value.lastUse < $1.value.lastUse }) {
            released.append(oldest.value.idle.removeFirst())
            idleCount -= 1
        }
        entries = entries.filter { $0.value.database != nil && (!$0.value.idle.isEmpty || !$0.value.compiles.isEmpty) }
        return released
    }

    func isKnownToCompile(_ function: DesignFunction) -> Bool {
        guard let database = function.code.database, let entry = entries[function.code.key],
              entry.database === database else { return false }
        return entry.compiles.contains(function.name)
    }

    mutating func markCompiles(_ function: DesignFunction, database: AnyObject) {
        let key = function.code.key
        let entry = self.entry(key, database) ?? {
            let made = Entry(database)
            entries[key] = made
            return made
        }()
        entry.compiles.insert(function.name)
        if entries.count > 1_024 { entries = entries.filter { !$0.value.idle.isEmpty } }
    }

    /// Every idle engine, taken out (to be released by the caller).
    mutating func removeAll() -> [CompiledEngine] {
        let all = entries.values.flatMap(\.idle)
        entries.removeAll()
        idleCount = 0
        return all
    }

    /// The entry of `key` when it is `database`'s; a stale one (another object at the
    /// same identifier) is dropped with its engines.
    private mutating func entry(_ key: DesignCodeKey, _ database: AnyObject) -> Entry? {
        guard let entry = entries[key] else { return nil }
        if entry.database === database { return entry }
        idleCount -= entry.idle.count
        entries[key] = nil
        return nil
    }
}
