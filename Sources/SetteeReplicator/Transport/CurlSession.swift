internal import Glibc
internal import CCurl
internal import FoundationEssentials
internal import Synchronization

/*
 CurlSession: the replicator's HTTP client over libcurl.

 One thread per session drives a curl multi handle: up to N exchanges at once
 (N the session's connections), taken from a queue as earlier ones end. The multi
 handle's connection cache keeps up to 2N connections open between exchanges
 (HTTP keep-alive; N to each of a replication's two peers). curl never blocks
 Swift's cooperative pool; the waiting task suspends on a continuation. Cancelling
 that task sets a flag the progress callback reads, which aborts the transfer
 within curl's progress interval.
 */

/// The replicator's HTTP client: keep-alive connections, several exchanges at
/// once, gzip, timeouts, TLS verification on unless turned off, or one pinned certificate.
///
/// A session has one trust rule. Connections and TLS sessions made under one rule
/// must never serve another (a connection verified by a pin reused for a request
/// pinning another certificate would skip the check), so `trusting(_:)` hands out
/// a separate session per pinned fingerprint.
public final class CurlSession: Sendable {
    private let queue = JobQueue()
    private let verifyTLS: Bool
    private let maxConnections: Int
    /// The certificate every https peer of this session must present, `AB:CD:…`.
    public let pinnedFingerprint: String?
    /// Threads start with the first exchange: a session made and never used costs nothing.
    private let started = Mutex(false)
    private let pinnedSessions = Mutex<[String: CurlSession]>([:])

    /// Connections of one replication's session: its chunks in flight (8 by default, each
    /// with several attachment GETs) and the read-ahead of the next changes page.
    /// With 4, exchanges queued for a connection while the peers sat idle
    /// (bench/RESULTS.md, "Attachments in a blob database").
    public static let connectionsPerReplication = 8

    public init(maxConnections: Int = 4, verifyTLS: Bool = true, pinnedFingerprint: String? = nil) {
        self.verifyTLS = verifyTLS
        self.maxConnections = max(1, maxConnections)
        self.pinnedFingerprint = pinnedFingerprint
    }

    /// This session when `pin` is nil or its own; otherwise the session (made once,
    /// with the same limits) that trusts exactly the certificate `pin` names.
    public func trusting(_ pin: String?) -> CurlSession {
        guard let pin, pin != pinnedFingerprint else { return self }
        return pinnedSessions.withLock { sessions in
            if let existing = sessions[pin] { return existing }
            let made = CurlSession(maxConnections: maxConnections, verifyTLS: verifyTLS, pinnedFingerprint: pin)
            sessions[pin] = made
            return made
        }
    }

    private func startThreads() {
        let wasStarted = started.withLock { value in
            let was = value
            value = true
            return was
        }
        guard !wasStarted else { return }
        _ = Self.globalInit
        queue.workerStarted()
        WorkerThread.start { [queue, verifyTLS, pinnedFingerprint, maxConnections] in
            CurlWorker(verifyTLS: verifyTLS, pinnedFingerprint: pinnedFingerprint, maxTransfers: maxConnections).run(queue)
            queue.workerEnded()
        }
    }

    /// Ends the thread and waits until it has cleaned up its handles: a worker still
    /// closing its TLS connections while the process exits ran into OpenSSL's exit-time
    /// cleanup and crashed `settee replicate` (SIGSEGV after a finished replication).
    /// Never runs on a worker: their closures hold the queue, not the session.
    deinit {
        queue.close()
        queue.waitForWorkers()
    }

    /// curl_global_init is not thread-safe; a static let runs it once, before any handle.
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `request` and collects the answer. HTTP error statuses are answers, not errors.
    public func send(_ request: RemoteRequest) async throws(RemoteError) -> RemoteResponse {
        let transfer = CurlTransfer(request: request, onBytes: nil)
        let status = try await perform(transfer)
        return RemoteResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    /// Sends `request` and hands the body to `onBytes` as it arrives; `onBytes`
    /// returns false to stop early. For long-lived feeds: `request.timeout` then
    /// bounds a stall (no byte for that long), not the whole exchange.
    public func stream(_ request: RemoteRequest, onBytes: @escaping @Sendable ([UInt8]) -> Bool)
        async throws(RemoteError) -> (status: Int, headers: [(String, String)]) {
        let transfer = CurlTransfer(request: request, onBytes: onBytes)
        let status = try await perform(transfer)
        return (status, transfer.headers)
    }

    private func perform(_ transfer: CurlTransfer) async throws(RemoteError) -> Int {
        startThreads()
        let result: Result<Int, RemoteError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.push(CurlJob(transfer: transfer, finish: { continuation.resume(returning: $0) }))
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }
}

/// An exchange waiting for a thread, and how to report its end.
struct CurlJob: Sendable {
    let transfer: CurlTransfer
    let finish: @Sendable (Result<Int, RemoteError>) -> Void
}

/// The exchanges waiting for the curl thread. Closing it ends the thread once idle.
final class JobQueue: @unchecked Sendable {
    // `condition` guards everything below; the thread waits on it for work when idle.
    private let condition = Condition()
    private var jobs: [CurlJob] = []
    private var isClosed = false
    /// Worker threads started and not yet ended.
    private var workers = 0
    /// Wakes the thread when it waits on its transfers rather than on this queue.
    private var wake: (@Sendable () -> Void)?

    /// Sets (or clears, with nil) what a push or a close runs to wake the thread.
    func onPush(_ action: (@Sendable () -> Void)?) {
        condition.lock()
        wake = action
        condition.unlock()
    }

    /// The next job without waiting; nil when there is none now.
    func tryPop() -> CurlJob? {
        condition.lock()
        defer { condition.unlock() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    func push(_ job: CurlJob) {
        condition.lock()
        defer { condition.unlock() }
        guard !isClosed else {
            job.finish(.failure(.cancelled))
            return
        }
        jobs.append(job)
        condition.signal()
        wake?()
    }

    /// The next job; nil once closed.
    func pop() -> CurlJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !isClosed { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }

    func workerStarted() {
        condition.lock()
        workers += 1
        condition.unlock()
    }

    func workerEnded() {
        condition.lock()
        workers -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once every worker has ended (after `close`).
    func waitForWorkers() {
        condition.lock()
        while workers > 0 { condition.wait() }
        condition.unlock()
    }

    func close() {
        condition.lock()
        isClosed = true
        let waiting = jobs
        jobs = []
        condition.broadcast()
        wake?()
        condition.unlock()
        for job in waiting { job.finish(.failure(.cancelled)) }
    }
}

/// A mutex and its condition variable, as Foundation's `NSCondition`.
final class Condition: @unchecked Sendable {
    // @unchecked: pthread objects are made to be shared between threads.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let variable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(variable, nil)
    }

    deinit {
        pthread_cond_destroy(variable)
        pthread_mutex_destroy(mutex)
        variable.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Unlocks, sleeps until signalled, and locks again.
    func wait() { pthread_cond_wait(variable, mutex) }
    func signal() { pthread_cond_signal(variable) }
    func broadcast() { pthread_cond_broadcast(variable) }
}
