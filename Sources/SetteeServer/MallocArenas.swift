internal import Glibc
import SetteeViews

/*
 glibc's malloc gives a thread that finds the arenas locked an arena of its own, up to eight
 per core (mallopt(3), M_ARENA_MAX): a device of a room of 20 (116 threads) held 15 arenas
 after a burst, and what each keeps for reuse adds up. A cap of one arena per core (two at
 least) cost a device 2.6 MB less anonymous memory after the same burst (bench/RESULTS.md,
 "A room of 20 formed with its daemons up first"). The environment glibc reads itself wins:
 `MALLOC_ARENA_MAX=16` (or `GLIBC_TUNABLES=glibc.malloc.arena_max=16`) gives back glibc's default.
 */

/// The cap on glibc's malloc arenas `settee serve` sets at start-up.
public enum MallocArenas {
    /// The cap for this process: one arena per core, two at least; nil when the environment
    /// sets one (glibc has read it already).
    public static func cap(environment: [String: String], cores: Int) -> Int? {
        if environment["MALLOC_ARENA_MAX"] != nil { return nil }
        if environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.arena_max") == true { return nil }
        return max(2, cores)
    }

    /// Sets the cap (before the process starts its threads); the cap set, or nil.
    @discardableResult
    public static func capAtStart(environment: [String: String]) -> Int? {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        guard let count = cap(environment: environment, cores: cores), ProcessHeap.capArenas(at: count) else { return nil }
        return count
    }
}
