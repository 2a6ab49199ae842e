internal import CJavaScriptCore

/// The process's malloc heap, engine or not.
public enum ProcessHeap {
    /// Hands the free pages glibc's arenas keep back to the system (malloc_trim(3)): a
    /// blocking call of a few milliseconds that takes each arena's lock, so not for
    /// Swift's cooperative pool.
    public static func returnFreedMemory() {
        _ = settee_malloc_trim()
    }

    /// Caps the arenas glibc's malloc may make at `count` (mallopt(3) `M_ARENA_MAX`); true
    /// when glibc took it. Arenas already made stay: call it before threads allocate.
    @discardableResult
    public static func capArenas(at count: Int) -> Bool {
        settee_cap_malloc_arenas(Int32(clamping: count)) == 1
    }
}
