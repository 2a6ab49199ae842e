internal import CJavaScriptCore

/// The process's malloc heap, engine or not.
public enum ProcessHeap {
    /// Hands the free pages glibc's arenas keep back to the system (malloc_trim(3)): a
    /// blocking call of a few milliseconds that takes each arena's lock, so not for
    /// Swift's cooperative pool.
    public static func returnFreedMemory() {
        _ = settee_malloc_trim()
    }
}
