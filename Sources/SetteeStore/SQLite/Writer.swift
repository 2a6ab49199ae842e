internal import Dispatch
internal import FoundationEssentials
internal import Synchronization

/// The one writer connection of a database, on its own serial queue.
///
/// Why one writer: SQLite allows one write transaction at a time anyway;
/// serializing writes in-process avoids SQLITE_BUSY and lets us batch.
/// Group commit: jobs that arrive while a transaction runs wait in `pending`
/// and are then committed together in the next single transaction, so one
/// fsync (synchronous=FULL) is shared by all of them. Each job but the first runs
/// inside its own SAVEPOINT (the first needs none: `runFirst`): a job that throws is
/// rolled back alone and gets its error; the others still commit. A job's continuation resumes only after COMMIT.
/// Blocking sqlite calls run on `queue`, never on Swift's cooperative pool.
/// `commits` is bumped after every commit, before any job of it is answered
/// (readers rely on that to reuse their snapshots, see `ReaderPool`).
/// A transaction only of jobs that need no fsync (`write(durable: false)`: a key index's
/// rows, derived again from the documents by a refresh) commits with synchronous=NORMAL:
/// in WAL mode no fsync at COMMIT; a crash of the process loses nothing; a power loss may
/// lose such a transaction whole, never a FULL one after it, whose fsync covers the WAL
/// before it (https://sqlite.org/pragma.html#pragma_synchronous, https://sqlite.org/wal.html).
/// The connection may be closed between jobs when the directory finds the database
/// idle (`closeWhenIdle`); the next job opens it again through `opener`. A transaction
/// never spans two blocks on `queue`, so no close can fall inside one.
final class Writer: @unchecked Sendable {
    // @unchecked: `connection` is touched only on `queue`; `pending` and
    // `isDraining` only under `lock`.
    private let queue: DispatchQueue
    private var connection: Connection?
    private let opener: ConnectionOpener?
    /// Work handed to `queue` outside `pending` (`withoutTransaction`), not finished yet.
    private let unqueuedJobs = Atomic<Int>(0)
    private let lock = Lock()
    private var pending: [WriteJob] = []
    private var isDraining = false
    private let commits: CommitCounter
    /// Runs after each transaction's COMMIT, before its jobs are answered
    /// (`CommittedSequenceFile`).
    private let afterCommit: (Connection) -> Void
    /// Set once the database is found damaged: every write fails with it (read-only).
    private let refusal = Mutex<StoreError?>(nil)
    /// Hears of a transaction that failed on the disk itself (`StoreError.isIOFailure`).
    private let ioFailureHandler = Mutex<(@Sendable (StoreError) -> Void)?>(nil)

    /// How many transactions committed so far, counting each `withoutTransaction`
    /// run as one (lets tests check batching).
    var commitCount: Int { Int(commits.value) }

    /// - Parameter opener: opens the connection again after `closeWhenIdle`; nil: never closed so.
    init(connection: Connection, label: String, commits: CommitCounter, opener: ConnectionOpener? = nil,
         afterCommit: @escaping (Connection) -> Void = { _ in }) {
        self.connection = connection
        self.opener = opener
        self.commits = commits
        self.afterCommit = afterCommit
        self.queue = DispatchQueue(label: "settee.writer.\(label)")
    }

    /// Runs `work` in a write transaction (shared with concurrent writes) and
    /// returns its result after the commit. A throw rolls back `work` only.
    /// - Parameter durable: false for work whose loss in a power cut the database
    ///   recovers from by itself (a key index's rows): a transaction of such jobs
    ///   alone commits without the WAL's fsync (the type's comment says why that is safe).
    /// - Parameter changing: the documents `work` may change, whose kept winners the
    ///   commit removes (`WinnerCache`); by default all of the database's: a job that
    ///   cannot name them, or forgot to, only costs reads from SQLite again.
    func write<T: Sendable>(durable: Bool = true, changing: ChangedDocuments = .all,
                            _ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        if let refused = refusal.withLock({ $0 }) { throw refused }
        return try await withCheckedThrowingContinuation { continuation in
            let box = ResultBox<T>()
            let job = WriteJob(isDurable: durable, changes: changing,
                               body: { connection in box.value = try work(connection) }, complete: { error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let value = box.value {
                    continuation.resume(returning: value)
                }
            })
            enqueue(job)
        }
    }

    /// Runs `work` on the writer queue outside any transaction (VACUUM needs that).
    /// It counts as a commit: readers drop their snapshots afterwards.
    func withoutTransaction<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        if let refused = refusal.withLock({ $0 }) { throw refused }
        unqueuedJobs.add(1, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = Result { try work(try self.openConnection()) }
                if case .failure(let error) = result { self.noteFailure(error) }
                self.commits.bump()
                self.unqueuedJobs.subtract(1, ordering: .relaxed)
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `work` like `withoutTransaction`, while readers keep no snapshot between
    /// reads: a TRUNCATE checkpoint waits until no reader uses the WAL.
    func withReadersOffTheWAL<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withoutTransaction { [commits] connection in
            commits.mayKeepSnapshots = false
            defer { commits.mayKeepSnapshots = true }
            commits.bump()  // asks the readers holding a snapshot to end it
            return try work(connection)
        }
    }

    /// Calls `handler` with each I/O error a transaction or a `withoutTransaction` run fails
    /// with: the database marks itself read-only rather than write on after it.
    func onIOFailure(_ handler: @escaping @Sendable (StoreError) -> Void) {
        ioFailureHandler.withLock { $0 = handler }
    }

    private func noteFailure(_ error: any Error) {
        guard let error = error as? StoreError, error.isIOFailure else { return }
        ioFailureHandler.withLock { $0 }?(error)
    }

    /// Jobs waiting for the next transaction (lets tests build a batch).
    var pendingCount: Int { lock.withLock { pending.count } }

    /// Makes every later write fail with `error` (a damaged database is read-only).
    func refuseWrites(with error: StoreError) { refusal.withLock { $0 = error } }

    /// Waits for queued work, then closes the connection for good (with `opener` retired).
    func close() {
        queue.sync {
            connection?.close()
            connection = nil
        }
    }

    /// Whether no write is queued or running (the directory closes only idle databases).
    var isIdle: Bool {
        unqueuedJobs.load(ordering: .relaxed) == 0 && lock.withLock { pending.isEmpty && !isDraining }
    }

    /// Closes the connection after the work queued so far, then runs `alsoClose` on the
    /// same queue; the next job opens the connection again.
    func closeWhenIdle(alsoClose: @escaping @Sendable () -> Void = {}) {
        queue.async {
            self.connection?.close()
            self.connection = nil
            alsoClose()
        }
    }

    /// Whether the connection is open once the work queued so far has run (for tests).
    func hasConnection() -> Bool { queue.sync { connection != nil } }

    /// The open connection, opened again if an idle close closed it; only on `queue`.
    private func openConnection() throws -> Connection {
        if let connection { return connection }
        guard let opener else { throw StoreError.sqlite(code: 21, message: "connection closed", sql: "") }
        let opened = try opener.open()
        connection = opened
        return opened
    }

    private func enqueue(_ job: WriteJob) {
        let mustSchedule = lock.withLock {
            pending.append(job)
            defer { isDraining = true }
            return !isDraining
        }
        if mustSchedule { queue.async { self.drain() } }
    }

    /// Commits batches until nothing is pending.
    private func drain() {
        while true {
            let batch: [WriteJob] = lock.withLock {
                let taken = pending
                pending = []
                if taken.isEmpty { isDraining = false }
                return taken
            }
            if batch.isEmpty { return }
            commit(batch)
        }
    }

    private func commit(_ batch: [WriteJob]) {
        var failures: [(any Error)?] = Array(repeating: nil, count: batch.count)
        let connection: Connection
        do {
            connection = try openConnection()
        } catch {
            for job in batch { job.complete(error) }
            return
        }
        // Set outside the transaction, as a pragma that changes how a commit syncs should be.
        let isRelaxed = !batch.contains(where: \.isDurable)
        if isRelaxed { try? connection.execute("PRAGMA synchronous=NORMAL") }
        defer { if isRelaxed { restoreFullSync(connection) } }
        do {
            try connection.run("BEGIN IMMEDIATE")
            for (index, job) in batch.enumerated() {
                let failure = index == 0 ? runFirst(job, on: connection) : runInSavepoint(job, on: connection)
                // A full disk or an I/O error may have ended the whole transaction (the jobs
                // before this one are gone with it, and a later job would run outside any):
                // the batch fails as one, with that error, not with COMMIT's "no transaction".
                if let ended = failure as? TransactionEnded { throw ended.cause }
                if let failure, (failure as? StoreError)?.mayEndTransaction == true || connection.isInAutocommit {
                    throw failure
                }
                failures[index] = failure
            }
            try connection.run("COMMIT")
            commits.bump(changing: ChangedDocuments(batch.map(\.changes)))
            afterCommit(connection)
        } catch {
            // The transaction as a whole failed: nothing of this batch is stored.
            if !connection.isInAutocommit { try? connection.run("ROLLBACK") }
            noteFailure(error)
            for job in batch { job.complete(error) }
            return
        }
        for (index, job) in batch.enumerated() { job.complete(failures[index]) }
    }

    /// synchronous=FULL again after a relaxed commit. A connection that cannot be set back
    /// is closed, so no durable write ever commits on it: the next job opens a new one,
    /// FULL from its start (`Connection.init`).
    private func restoreFullSync(_ connection: Connection) {
        do {
            try connection.execute("PRAGMA synchronous=FULL")
        } catch {
            connection.close()
            self.connection = nil
        }
    }

    /// The first job of a transaction runs without a savepoint: when it fails, the whole
    /// transaction, which holds nothing else yet, is rolled back and a new one begins for
    /// the jobs after it. A savepoint copies each page it changes that existed before it
    /// into a sub-journal, spilled to a temporary file past 64 KiB
    /// (https://sqlite.org/tempfiles.html, "Statement Journal Files"): a view build's job
    /// alone in its transaction wrote 41 MB there beside its 72 MB of WAL (100,000 rows).
    private func runFirst(_ job: WriteJob, on connection: Connection) -> (any Error)? {
        do {
            try job.body(connection)
            return nil
        } catch let failure {
            // SQLite ended the transaction itself: the batch fails as a whole, as below.
            if connection.isInAutocommit { return TransactionEnded(cause: failure) }
            do {
                try connection.run("ROLLBACK")
                try connection.run("BEGIN IMMEDIATE")
            } catch {
                return TransactionEnded(cause: failure)
            }
            return failure
        }
    }

    private func runInSavepoint(_ job: WriteJob, on connection: Connection) -> (any Error)? {
        do {
            try connection.run("SAVEPOINT job")
            do {
                try job.body(connection)
                try connection.run("RELEASE job")
                return nil
            } catch let failure {
                // When SQLite ended the transaction itself, ROLLBACK TO fails too: the job's
                // own error is the one to tell, and the batch fails (nothing of the job may
                // be committed).
                do { try connection.execute("ROLLBACK TO job; RELEASE job") } catch { return TransactionEnded(cause: failure) }
                return failure
            }
        } catch {
            return error
        }
    }
}

/// A job whose savepoint could not be rolled back: its batch fails as a whole with `cause`.
private struct TransactionEnded: Error {
    let cause: any Error
}

/// One queued write: its work and the continuation to resume after commit.
private final class WriteJob: @unchecked Sendable {
    // @unchecked: created on the caller, then used only on the writer queue.
    /// Whether its transaction must be fsync'd at COMMIT (`Writer.write(durable:)`).
    let isDurable: Bool
    /// The documents it may change (`Writer.write(changing:)`).
    let changes: ChangedDocuments
    let body: (Connection) throws -> Void
    let complete: ((any Error)?) -> Void

    init(isDurable: Bool = true, changes: ChangedDocuments = .all, body: @escaping (Connection) throws -> Void,
         complete: @escaping ((any Error)?) -> Void) {
        self.isDurable = isDurable
        self.changes = changes
        self.body = body
        self.complete = complete
    }
}

/// Carries a job's result from its body to its completion, both on the writer queue.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
