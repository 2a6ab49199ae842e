internal import Dispatch
internal import FoundationEssentials
internal import Synchronization

/// A few reader connections, each on its own serial queue.
///
/// Why a pool: in WAL mode readers never block the writer nor each other, so
/// several connections let reads run in parallel while a write commits, and a
/// point read need not wait behind a long scan (`place`). Every read runs inside
/// a (deferred) read transaction, so its statements see one consistent snapshot.
/// Blocking sqlite calls stay off the cooperative pool.
///
/// Snapshots are kept between reads while the writer has not committed
/// (`CommitCounter`): beginning and ending a WAL read transaction (two `fcntl`
/// locks, an `fstat`, the wal-index header check) was a tenth of a `GET`'s CPU.
/// A reader ends its snapshot at its next read after a commit, or, if no read
/// comes, when the writer's commit asks it to, so an idle reader never holds
/// the WAL from being checkpointed and reset.
///
/// Connections open on a reader's first read, not with the pool: most reads go to the
/// first reader (`place`), so a database read now and then holds one reader's
/// descriptors, not every reader's. The directory closes them all when it finds the
/// database idle (`closeWhenIdle`); the next read opens its reader again.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: a reader's connection and snapshot are used only on its own queue.
    private let readers: [Reader]
    private let commits: CommitCounter
    private let onCorruption: @Sendable (StoreError) -> Void
    /// Runs a read handed while its reader is idle (`ReadThread`); nil: every read on the readers' queues.
    private let readThread: ReadThread?

    /// - Parameter mmapSize: bytes of the file each reader maps (`PRAGMA mmap_size`); 0 reads with `pread`.
    ///   Mapped, a page is read from the OS page cache in place: no `pread` per page
    ///   missed (a tenth of a `GET`'s CPU on a database larger than the readers'
    ///   caches) and no private copy in each reader's cache. The cost, per
    ///   https://sqlite.org/mmap.html, is that an I/O error on the file becomes a
    ///   signal instead of an error code; Settee owns its files, so it accepts that.
    /// - Parameter onCorruption: told of every read that failed because SQLite found the
    ///   file malformed (`SQLITE_CORRUPT`, `SQLITE_NOTADB`), so the database can be marked.
    init(opener: ConnectionOpener, count: Int, label: String, commits: CommitCounter,
         readThread: ReadThread? = ReadThread.shared,
         onCorruption: @escaping @Sendable (StoreError) -> Void = { _ in }) {
        precondition(count >= 1, "a database needs at least one reader")
        readers = (0..<count).map { index in
            Reader(queue: DispatchQueue(label: "settee.reader.\(label).\(index)"), opener: opener)
        }
        self.commits = commits
        self.readThread = readThread
        self.onCorruption = onCorruption
        // Weak: the counter holds this closure for as long as it lives.
        commits.observe { [readers, weak commits] _ in
            guard let commits else { return }
            for reader in readers { reader.releaseSnapshot(ifStaleAt: commits) }
        }
    }

    /// What a read does, for `read` to place it: a point read touches a few rows by
    /// key (a document, the database's figures); a scan walks a range of rows
    /// (`_all_docs`, `_changes`) and may hold its reader for long.
    enum ReadKind: Sendable {
        case point
        case scan
    }

    /// Reads queued on the first reader past which the next point read goes to the
    /// least busy reader instead: a valve for machines where one reader thread could
    /// not keep up. On 2 cores with 32 connections the queue stays below it, and a
    /// valve of 4 gave back most of the gain.
    static let pointReadSpill = 16

    /// Runs `work` on a snapshot no older than the last commit, on the reader `place` picks.
    func read<T: Sendable>(_ kind: ReadKind = .point,
                           _ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await readCounted(kind) { connection, _ in try work(connection) }
    }

    /// `read`, telling `work` the commit count its snapshot began at: its rows are at
    /// least that commit's (the count is read before the snapshot begins). What the
    /// winners' cache keeps is checked against it (`WinnerCache`).
    func readCounted<T: Sendable>(_ kind: ReadKind = .point,
                                  _ work: @escaping @Sendable (Connection, UInt64) throws -> T) async throws -> T {
        let reader = place(kind)
        let isReaderIdle = reader.queued.add(1, ordering: .relaxed).newValue == 1
        if kind == .scan { reader.scans.add(1, ordering: .relaxed) }
        let commits = self.commits
        // Unchecked: the block below resumes it exactly once, on every path.
        return try await withUnsafeThrowingContinuation { continuation in
            let run: @Sendable () -> Void = {
                let result = Result { try reader.read(commits: commits, work) }
                if case .failure(let error as StoreError) = result, error.isCorruption { self.onCorruption(error) }
                if kind == .scan { reader.scans.subtract(1, ordering: .relaxed) }
                reader.queued.subtract(1, ordering: .relaxed)
                continuation.resume(with: result)
            }
            // An idle reader's read goes to the read thread when it is free (no wake-up
            // when it is still looking); otherwise, or when busy, to the reader's queue.
            if let thread = readThread {
                if isReaderIdle, thread.offer({ reader.queue.sync(execute: run) }) { return }
                // Reads in parallel: the thread sleeps after its read instead of spinning.
                if !isReaderIdle { thread.noteParallelRead() }
            }
            reader.queue.async(execute: run)
        }
    }

    /// Point reads go to the first reader while it has no scan queued and fewer than
    /// `pointReadSpill` reads: one thread taking the point reads in turn sleeps and
    /// wakes less often than two taking them alternately (bench/RESULTS.md, "Point
    /// reads on one reader"). Past that, a point read goes to the least busy reader
    /// without a scan, so it never queues behind one while such a reader exists.
    /// Scans go to the least busy reader, the last of equals, away from the first; but
    /// while the first is idle, a scan that would open a closed reader takes the first:
    /// a database read now and then keeps one reader's descriptors and caches, not two.
    private func place(_ kind: ReadKind) -> Reader {
        let first = readers[0]
        if kind == .point, first.scans.load(ordering: .relaxed) == 0,
           first.queued.load(ordering: .relaxed) < Self.pointReadSpill {
            return first
        }
        func load(_ reader: Reader) -> Int {
            // A reader with a scan queued counts as busier than any without one for a point read.
            let scanPenalty = kind == .point && reader.scans.load(ordering: .relaxed) > 0 ? 1 << 20 : 0
            return reader.queued.load(ordering: .relaxed) + scanPenalty
        }
        switch kind {
        case .point: return readers.min { load($0) < load($1) } ?? first
        case .scan:
            let chosen = readers.reversed().min { load($0) < load($1) } ?? first
            let isFirstIdle = first.queued.load(ordering: .relaxed) == 0
            return !chosen.isOpened.load(ordering: .relaxed) && isFirstIdle ? first : chosen
        }
    }

    /// How many snapshots the readers began so far (lets tests check reuse).
    var snapshotsBegun: Int { readers.reduce(0) { $0 + $1.snapshotsBegun.load(ordering: .relaxed) } }

    /// How many readers hold a snapshot once the work queued on them so far has run.
    func openSnapshots() -> Int {
        readers.reduce(0) { count, reader in count + (reader.queue.sync { reader.hasSnapshot } ? 1 : 0) }
    }

    /// Waits for running reads, then closes every connection.
    func close() {
        for reader in readers { reader.queue.sync { reader.close() } }
    }

    /// Whether no read is queued or running.
    var isIdle: Bool { readers.allSatisfy { $0.queued.load(ordering: .relaxed) == 0 } }

    /// Closes every connection after the reads queued so far; later reads open theirs again.
    func closeWhenIdle() {
        for reader in readers { reader.queue.async { reader.close() } }
    }

    /// How many readers have their connection open, once the work queued so far has run.
    func openConnections() -> Int {
        readers.reduce(0) { count, reader in count + (reader.queue.sync { reader.isOpen } ? 1 : 0) }
    }
}

/// One reader connection, the queue that alone uses it, and its open snapshot.
private final class Reader: @unchecked Sendable {
    // @unchecked: `connection` and `snapshot` are used only on `queue`.
    let queue: DispatchQueue
    private let opener: ConnectionOpener
    /// Opened by the first read, closed by `close`; only on `queue`.
    private var connection: Connection?
    /// The commit count when the open read transaction began; nil when none is open.
    private var snapshot: UInt64?
    /// Set while a snapshot is open, so the writer schedules a release only then.
    private let holdsSnapshot = Atomic<Bool>(false)
    /// Set while a release is queued, so a burst of commits queues one.
    private let isReleaseQueued = Atomic<Bool>(false)
    let snapshotsBegun = Atomic<Int>(0)
    /// Reads queued or running on this reader, for `ReaderPool.place`.
    let queued = Atomic<Int>(0)
    /// Of those, the scans.
    let scans = Atomic<Int>(0)

    /// Whether a read transaction is open; only on `queue`.
    var hasSnapshot: Bool { snapshot != nil }
    /// Whether the connection is open; only on `queue`.
    var isOpen: Bool { connection != nil }
    /// The same, for `ReaderPool.place` on any thread.
    let isOpened = Atomic<Bool>(false)

    init(queue: DispatchQueue, opener: ConnectionOpener) {
        self.queue = queue
        self.opener = opener
    }

    /// The connection, opened if it is not; only on `queue`.
    private func openConnection() throws -> Connection {
        if let connection { return connection }
        let opened = try opener.openReader()
        connection = opened
        isOpened.store(true, ordering: .relaxed)
        return opened
    }

    /// `work` in the open snapshot if it began at the current commit count, else in
    /// a new one, which stays open afterwards while no commit happened and readers
    /// may keep snapshots.
    ///
    /// Whether to keep it is decided after the work, not before. A commit, or a
    /// checkpoint that needs the readers off the WAL, asks readers that hold a
    /// snapshot to end it (`releaseSnapshot`); one that came between reading the
    /// count here and marking the snapshot held would not ask this reader, and a
    /// snapshot kept then held the next TRUNCATE checkpoint, and every write queued
    /// behind it, for the 10 s busy timeout (found by fuzz/api.py). The mark and the
    /// checks are sequentially consistent against the writer's flag, count and its
    /// look at the mark: one of the two sides always sees the other.
    func read<T>(commits: CommitCounter, _ work: (Connection, UInt64) throws -> T) throws -> T {
        let commitCount = commits.value
        let connection = try openConnection()
        if snapshot != commitCount {
            endSnapshot()
            try connection.run("BEGIN")
            snapshotsBegun.add(1, ordering: .relaxed)
            snapshot = commitCount
            holdsSnapshot.store(true, ordering: .sequentiallyConsistent)
        }
        do {
            defer { if !commits.mayKeepSnapshots || commits.value != commitCount { endSnapshot() } }
            return try work(connection, commitCount)
        } catch {
            // After an error the transaction's state is unknown: start afresh next time.
            endSnapshot()
            throw error
        }
    }

    /// Ends the open snapshot on `queue` if, by then, a commit came after it began or
    /// readers may no longer keep one.
    ///
    /// Judged when the release runs, not when it is asked for: while one release is
    /// queued, further asks are dropped, and a read that ran before it may have begun
    /// a snapshot the dropped ask was about (a checkpoint then waited on it).
    func releaseSnapshot(ifStaleAt commits: CommitCounter) {
        guard holdsSnapshot.load(ordering: .sequentiallyConsistent),
              !isReleaseQueued.exchange(true, ordering: .sequentiallyConsistent) else { return }
        queue.async { [self] in
            isReleaseQueued.store(false, ordering: .sequentiallyConsistent)
            if let snapshot, !commits.mayKeepSnapshots || snapshot != commits.value { endSnapshot() }
        }
    }

    func close() {
        endSnapshot()
        connection?.close()
        connection = nil
        isOpened.store(false, ordering: .relaxed)
    }

    private func endSnapshot() {
        guard snapshot != nil else { return }
        try? connection?.run("COMMIT")
        snapshot = nil
        holdsSnapshot.store(false, ordering: .sequentiallyConsistent)
    }
}
