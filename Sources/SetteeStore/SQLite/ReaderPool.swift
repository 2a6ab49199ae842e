internal import Dispatch
internal import Foundation

/// A few reader connections, each on its own serial queue.
///
/// Why a pool: in WAL mode readers never block the writer nor each other, so
/// several connections let reads run in parallel while a write commits. Each
/// read runs in its own (deferred) transaction so its statements see one
/// consistent snapshot. Blocking sqlite calls stay off the cooperative pool.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: each connection is used only on its own queue; `next` only under `lock`.
    private let readers: [Reader]
    private let lock = NSLock()
    private var next = 0

    /// - Parameter mmapSize: bytes of the file each reader maps (`PRAGMA mmap_size`); 0 reads with `pread`.
    ///   Mapped, a page is read from the OS page cache in place: no `pread` per page
    ///   missed (a tenth of a `GET`'s CPU on a database larger than the readers'
    ///   caches) and no private copy in each reader's cache. The cost, per
    ///   https://sqlite.org/mmap.html, is that an I/O error on the file becomes a
    ///   signal instead of an error code; Settee owns its files, so it accepts that.
    init(path: String, count: Int, label: String, mmapSize: Int = 0) throws {
        precondition(count >= 1, "a database needs at least one reader")
        readers = try (0..<count).map { index in
            let connection = try Connection(path: path)
            if mmapSize > 0 { try connection.execute("PRAGMA mmap_size = \(mmapSize)") }
            return Reader(queue: DispatchQueue(label: "settee.reader.\(label).\(index)"), connection: connection)
        }
    }

    /// Runs `work` in a read transaction on the next reader.
    func read<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let reader = lock.withLock {
            defer { next = (next + 1) % readers.count }
            return readers[next]
        }
        return try await withCheckedThrowingContinuation { continuation in
            reader.queue.async {
                let connection = reader.connection
                continuation.resume(with: Result {
                    try connection.run("BEGIN")
                    defer { try? connection.run("COMMIT") }
                    return try work(connection)
                })
            }
        }
    }

    /// Waits for running reads, then closes every connection.
    func close() {
        for reader in readers { reader.queue.sync { reader.connection.close() } }
    }
}

/// One reader connection and the queue that alone uses it.
private final class Reader: @unchecked Sendable {
    // @unchecked: `connection` is used only on `queue`.
    let queue: DispatchQueue
    let connection: Connection

    init(queue: DispatchQueue, connection: Connection) {
        self.queue = queue
        self.connection = connection
    }
}
