internal import Synchronization

/// Documents' winning revisions as plain reads last found them, kept in memory so that
/// `Database.winner(id:)` (a `GET /{db}/{docid}` with no query; the library's reads by id) answers a
/// hot document without a reader's trip through SQLite and without suspending: nginx
/// serves its static files from the page cache, and SQLite, the reader's wake-up and the
/// switches back were about a quarter of such a GET's server CPU (bench/RESULTS.md,
/// "A winner cache").
///
/// One cache serves every database of a `DatabaseDirectory`, bounded by bytes over all
/// of them (`[settee] document_cache_size`), the least recently used entry evicted first;
/// a database closed for good, or closed while idle, drops its entries.
///
/// **An entry never outlives a commit that changed its document.** Each database's
/// entries carry one generation: the commit count (`CommitCounter`) they are current for.
/// - Before the writer publishes a commit (bumps the count, then answers its jobs), it
///   removes the entries of the documents the commit changed, or all of the database's
///   when it cannot name them, and moves the generation to the new count, both under
///   this cache's lock (`CachedWinners.commit`).
/// - A reader inserts what it read only if the generation is still the commit count its
///   snapshot began at, checked under the same lock (`CachedWinners.insert`).
/// A reader reads the count before its snapshot begins, so its rows are at least that
/// count's commit. An insert under the lock before a commit's removal is removed by it;
/// one after it finds the generation moved on and is refused. So a read that raced a
/// commit never leaves the old revision behind, and a hit is as current as a read from a
/// reader's kept snapshot: no write answered so far is missing from it.
public final class WinnerCache: Sendable {
    private let shelves: Mutex<WinnerShelves>
    private let nextDatabase = Atomic<Int>(0)

    /// 32 MiB: the winners of about 100,000 small documents; a `GET` of 20,000 (bench/get_nginx) takes 8 MB.
    public static let defaultBudget = 32 * 1024 * 1024

    /// - Parameter budget: bytes all entries may take (`WinnerShelves.cost`); 0 keeps none.
    public init(budget: Int) {
        shelves = Mutex(WinnerShelves(budget: budget))
    }

    /// Bytes the entries take now.
    public var bytes: Int { shelves.withLock { $0.bytes } }

    /// How many entries are kept now.
    public var count: Int { shelves.withLock { $0.count } }

    /// A newly opened database's share, current at commit count 0.
    func shelf() -> CachedWinners {
        let key = nextDatabase.add(1, ordering: .relaxed).newValue
        shelves.withLock { $0.open(key, generation: 0) }
        return CachedWinners(cache: self, key: key)
    }

    fileprivate func withShelves<T>(_ body: (inout WinnerShelves) -> T) -> T {
        shelves.withLock { body(&$0) }
    }
}

/// One database's share of a `WinnerCache` (`Database.cachedWinners`).
final class CachedWinners: Sendable {
    private let cache: WinnerCache
    private let key: Int
    /// Runs on the reader between its read and its insert: lets a test hold a read there
    /// while a commit lands. Nil outside tests.
    let beforeInsert = Mutex<(@Sendable (String) -> Void)?>(nil)

    fileprivate init(cache: WinnerCache, key: Int) {
        self.cache = cache
        self.key = key
    }

    /// The kept winner of `id`, nil when none is kept.
    func revision(id: String) -> StoredRevision? {
        cache.withShelves { $0.revision(key, id: id) }
    }

    /// Keeps what a read of `id` found, if no commit was published since its snapshot began at `commit`.
    func insert(_ revision: StoredRevision, id: String, readAt commit: UInt64) {
        if let hook = beforeInsert.withLock({ $0 }) { hook(id) }
        cache.withShelves { $0.insert(revision, key, id: id, readAt: commit) }
    }

    /// Called by the writer before it publishes commit count `generation`: the entries of `changed` go.
    func commit(_ changed: ChangedDocuments, generation: UInt64) {
        cache.withShelves { $0.commit(key, changed: changed, generation: generation) }
    }

    /// Drops the entries (an idle close: the database may be used again).
    func removeAll() {
        cache.withShelves { $0.removeEntries(of: key) }
    }

    /// Drops the entries for good: the database is closed or deleted.
    func close() {
        cache.withShelves { $0.close(key) }
    }
}
