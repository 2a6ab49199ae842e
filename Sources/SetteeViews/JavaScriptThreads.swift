internal import Dispatch
internal import Glibc
internal import Synchronization

/*
 The threads design document JavaScript runs on, and nothing else does.

 JavaScriptCore calls block their thread for as long as the script runs (up to the
 time limit, 5 s): on Swift's cooperative pool (one thread per core) a few such calls
 would leave no thread for requests that run no JavaScript at all (issue #46, item 4).
 So every call is a job in one FIFO queue served by at most `threadCount` threads of
 our own. A thread starts when a job finds no idle one, and ends after
 `idleSeconds` with nothing to do, so a node that runs no JavaScript keeps none.

 The queue is bounded: past `queueLimit` waiting jobs a new one is refused at once,
 and a job that waited longer than `maximumWait` is refused when its turn comes
 instead of run (its caller has waited long enough). Both answer `JavaScriptError`
 with `isOverloaded` (the server's 503). Callers suspend on a continuation, never a
 lock.

 Invariants, under `state`: `workers` ≤ `threadCount`; `busy` ≤ `workers`; every
 queued job was signalled once on `ready`, and each worker takes a job only after a
 successful wait on it.
*/

/// A bounded pool of dedicated threads, and a bounded queue, for JavaScript calls.
public final class JavaScriptThreads: Sendable {
    public let threadCount: Int
    public let queueLimit: Int
    /// Seconds a job may wait in the queue before it is refused rather than run, read
    /// as each job's turn comes (the server's follows its time limit, which can change).
    private let maximumWaitSetting: @Sendable () -> Double
    public var maximumWait: Double { maximumWaitSetting() }
    let idleSeconds: Double

    private struct Job {
        let enqueued: ContinuousClock.Instant
        /// Runs the job, or (true) tells its caller it waited too long.
        let run: @Sendable (_ isExpired: Bool) -> Void
    }

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var workers = 0
        var busy = 0
        var pending: Int { jobs.count - head }
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    public convenience init(threadCount: Int, queueLimit: Int, maximumWait: Double, idleSeconds: Double = 30) {
        self.init(threadCount: threadCount, queueLimit: queueLimit, maximumWait: { maximumWait }, idleSeconds: idleSeconds)
    }

    public init(threadCount: Int, queueLimit: Int, maximumWait: @escaping @Sendable () -> Double,
                idleSeconds: Double = 30) {
        self.threadCount = max(1, threadCount)
        self.queueLimit = max(1, queueLimit)
        maximumWaitSetting = maximumWait
        self.idleSeconds = idleSeconds
    }

    /// Jobs waiting for a thread, and threads running one (for tests and `_active_tasks`-like figures).
    public var load: (waiting: Int, running: Int, threads: Int) {
        state.withLock { ($0.pending, $0.busy, $0.workers) }
    }

    /// Runs `work` on one of the pool's threads and returns what it returned.
    /// - Throws: `JavaScriptError.overloaded` when the queue is full or the job waited
    ///   past `maximumWait`; whatever `work` threw.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws(JavaScriptError) -> T)
        async throws(JavaScriptError) -> T {
        let result: Result<T, JavaScriptError> = await withCheckedContinuation { continuation in
            let accepted = submit { isExpired in
                if isExpired {
                    continuation.resume(returning: .failure(.overloaded("waited more than \(self.maximumWait) s")))
                } else {
                    continuation.resume(returning: Result { () throws(JavaScriptError) in try work() })
                }
            }
            if !accepted {
                continuation.resume(returning: .failure(.overloaded("\(self.queueLimit) calls are waiting already")))
            }
        }
        return try result.get()
    }

    /// `run` for callers that must stay synchronous (the store's index builder calls
    /// its map closure synchronously): runs `work` for each of `parts` as its own job (at
    /// once, on as many threads) and blocks the calling thread until all are done.
    /// - Throws: `JavaScriptError.overloaded` when a part could not be queued or waited
    ///   too long (the parts already queued still run, and are waited for).
    public func runAndWait<T: Sendable>(parts: Int, _ work: @escaping @Sendable (Int) -> T) throws(JavaScriptError) -> [T] {
        let done = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[T?]>(Array(repeating: nil, count: parts))
        let failure = Mutex<JavaScriptError?>(nil)
        var queued = 0
        for part in 0..<parts {
            let accepted = submit { isExpired in
                if isExpired {
                    failure.withLock { $0 = .overloaded("waited more than \(self.maximumWait) s") }
                } else {
                    let value = work(part)
                    outcomes.withLock { $0[part] = value }
                }
                done.signal()
            }
            guard accepted else {
                failure.withLock { $0 = .overloaded("\(queueLimit) calls are waiting already") }
                break
            }
            queued += 1
        }
        for _ in 0..<queued { done.wait() }
        if let error = failure.withLock({ $0 }) { throw error }
        return outcomes.withLock { $0.compactMap { $0 } }
    }

    /// Queues `job`, starting a thread when none is idle; false when the queue is full.
    private func submit(_ job: @escaping @Sendable (Bool) -> Void) -> Bool {
        let startThread: Bool? = state.withLock { state in
            guard state.pending < queueLimit else { return nil }
            state.jobs.append(Job(enqueued: .now, run: job))
            let idle = state.workers - state.busy
            guard idle < state.pending, state.workers < threadCount else { return false }
            state.workers += 1
            return true
        }
        guard let startThread else { return false }
        if startThread { spawn() }
        ready.signal()
        return true
    }

    private func spawn() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread: pthread_t = 0
        // Default attributes: the process's stack size (8 MiB), which JavaScriptCore's
        // recursion limit is measured against.
        let created = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<JavaScriptThreads>.fromOpaque(raw).takeRetainedValue().serve()
            return nil
        }, box)
        if created != 0 {
            Unmanaged<JavaScriptThreads>.fromOpaque(box).release()
            state.withLock { $0.workers -= 1 }  // the jobs wait for the next thread that starts
        } else {
            pthread_detach(thread)
        }
    }

    /// One thread's loop: take the next job and run it, until idle for `idleSeconds`.
    private func serve() {
        while true {
            if ready.wait(timeout: .now() + idleSeconds) == .timedOut {
                let exits = state.withLock { state in
                    guard state.pending == 0 else { return false }
                    state.workers -= 1
                    return true
                }
                if exits { return }
                continue
            }
            let job: Job? = state.withLock { state in
                guard state.pending > 0 else { return nil }
                let job = state.jobs[state.head]
                state.head += 1
                if state.head > 64 && state.head * 2 > state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                state.busy += 1
                return job
            }
            guard let job else { continue }
            job.run(ContinuousClock.now - job.enqueued > .seconds(maximumWaitSetting()))
            state.withLock { $0.busy -= 1 }
        }
    }
}
