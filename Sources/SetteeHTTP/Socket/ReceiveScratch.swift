internal import Glibc

/*
 ReceiveScratch: where `Socket.receive` lets the kernel write a read of up to 64 KiB
 before copying it out at its actual size, one buffer per thread, kept for the
 thread's life and freed when it exits.

 Why: a temporary allocation of 64 KiB per read was a heap allocation (too large for
 the stack in an async frame), and one of that size takes glibc's large-chunk path,
 which first consolidates the arena's small free chunks: `malloc_consolidate` alone
 was 1.5 % of the server's samples on a document `GET` (perf, bench/RESULTS.md "One
 thread fewer on a GET's path"). `receive` is synchronous, so a thread never uses its
 buffer twice at once. Pages are touched only as far as reads fill them.
 */

/// A per-thread receive buffer of `size` bytes for `Socket.receive`.
enum ReceiveScratch {
    static let size = 64 * 1024

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, { free($0) }) == 0, "pthread_key_create failed")
        return key
    }()

    /// This thread's buffer, allocated on its first use; nil if that allocation failed.
    static func forThisThread() -> UnsafeMutableRawPointer? {
        if let buffer = pthread_getspecific(key) { return buffer }
        guard let buffer = malloc(size) else { return nil }
        pthread_setspecific(key, buffer)
        return buffer
    }
}
