internal import Synchronization

/// Opens a database's connections (its writer's and its readers') again after the
/// directory closed them for being idle, and tells the directory when it does.
///
/// States: *open* (connections may be open, opened on demand); *idle-closed* (the
/// directory asked the connections to close: the next one opened reports `reopened`,
/// once, so the directory counts the database as open again); *retired* (deleted, or
/// the directory closed everything: opening throws, so a handle kept by a feed or a
/// replication never makes a deleted file anew).
final class ConnectionOpener: Sendable {
    let path: String
    let name: String
    /// Bytes of the file a reader maps (`PRAGMA mmap_size`).
    let readerMmapSize: Int
    private let state = Mutex<State>(State())

    private struct State {
        var isRetired = false
        var isIdleClosed = false
        var reopened: (@Sendable () -> Void)?
    }

    init(path: String, name: String, readerMmapSize: Int) {
        self.path = path
        self.name = name
        self.readerMmapSize = readerMmapSize
    }

    /// A connection to the existing file, never creating it.
    /// - Throws: `.databaseNotFound` once retired; `.sqlite` when SQLite cannot open it.
    func open() throws -> Connection {
        let wasIdleClosed = try state.withLock { state in
            guard !state.isRetired else { throw StoreError.databaseNotFound(name) }
            defer { state.isIdleClosed = false }
            return state.isIdleClosed ? state.reopened : nil
        }
        let connection = try Connection(path: path, create: false)
        wasIdleClosed?()
        return connection
    }

    /// A reader's connection: `open()` with the file mapped.
    func openReader() throws -> Connection {
        let connection = try open()
        if readerMmapSize > 0 { try connection.execute("PRAGMA mmap_size = \(readerMmapSize)") }
        return connection
    }

    /// Called by the directory before it closes the connections of an idle database.
    func markIdleClosed() { state.withLock { $0.isIdleClosed = true } }

    /// No connection opens any more.
    func retire() { state.withLock { $0.isRetired = true } }

    var isRetired: Bool { state.withLock { $0.isRetired } }

    /// What runs when a connection opens after an idle close (the directory's bookkeeping).
    func onReopen(_ action: @escaping @Sendable () -> Void) { state.withLock { $0.reopened = action } }
}
