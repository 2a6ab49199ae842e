internal import Glibc

/// A plain mutex for state spread over several stored properties (where a
/// `Mutex<Value>` would have to own them all): `lock()`/`unlock()` and `withLock`,
/// as Foundation's `NSLock`, without linking Foundation's locale machinery.
final class Lock: @unchecked Sendable {
    // @unchecked: a pthread mutex is made to be shared between threads.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Takes the lock only if it is free.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
