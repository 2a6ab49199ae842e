internal import Synchronization

/// How many times the database's one writer has committed, for readers to know
/// whether the snapshot they hold is still the latest.
///
/// All writes of a database go through its in-process `Writer`, which bumps this
/// after each commit and before it answers the jobs of that commit. So when a
/// reader sees the count it saw when its snapshot began, no write has been
/// acknowledged since, and reading from that snapshot is as current as starting
/// a new one.
final class CommitCounter: Sendable {
    private let count = Atomic<UInt64>(0)
    /// The database's kept winners: each bump first removes those the commit changed.
    private let cachedWinners: CachedWinners?
    private let snapshotsMayBeKept = Atomic<Bool>(true)
    /// Called with the new count after each bump (`ReaderPool` releases snapshots that went stale).
    private let observers = Mutex<[@Sendable (UInt64) -> Void]>([])

    // Sequentially consistent, not acquire/release: a reader marks its snapshot held
    // and then loads these, the writer stores these and then loads the mark, and
    // only a total order guarantees one of them sees the other (ReaderPool's `read`).
    var value: UInt64 { count.load(ordering: .sequentiallyConsistent) }

    /// False while the writer needs every reader off the WAL (a TRUNCATE checkpoint
    /// waits for that): readers then end their snapshot after each read.
    var mayKeepSnapshots: Bool {
        get { snapshotsMayBeKept.load(ordering: .sequentiallyConsistent) }
        set { snapshotsMayBeKept.store(newValue, ordering: .sequentiallyConsistent) }
    }

    init(cachedWinners: CachedWinners? = nil) {
        self.cachedWinners = cachedWinners
    }

    /// Publishes a commit (or a change made outside a transaction) that changed `changed`.
    /// Only the writer's queue bumps, so the next count is known before the add: the
    /// winners' cache drops what the commit changed before any reader can see the new
    /// count (`WinnerCache` says why that order keeps its entries current).
    func bump(changing changed: ChangedDocuments = .all) {
        cachedWinners?.commit(changed, generation: count.load(ordering: .sequentiallyConsistent) + 1)
        let now = count.add(1, ordering: .sequentiallyConsistent).newValue
        for observer in observers.withLock({ $0 }) { observer(now) }
    }

    func observe(_ observer: @escaping @Sendable (UInt64) -> Void) {
        observers.withLock { $0.append(observer) }
    }
}
