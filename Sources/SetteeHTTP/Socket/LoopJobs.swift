internal import Glibc
internal import Synchronization

/*
 LoopJobs: the jobs of the tasks that prefer an `EventLoop` as their executor
 (`Task(executorPreference:)`), run by the loop's thread between its `epoll_wait`s.

 Why: a plain-HTTP connection's task used to go event loop → cooperative pool on
 every request (the loop resumed it, a pool thread woke to run it), then pool →
 reader → pool. A connection task that prefers its loop is resumed where its
 socket's readiness is seen: no wake-up, no thread switch for that hand-off
 (bench/RESULTS.md, "One thread fewer on a GET's path"). Only requests the responder
 calls light run here (`HTTPResponder.isLight`); the rest go to the pool.

 Wake-ups are batched: a job enqueued from another thread (a reader resuming a
 read's continuation) writes the loop's eventfd only when the loop is asleep in
 `epoll_wait` or about to be, and only the first such job does: while the loop
 runs, jobs queue without a system call.

 Lost wake-ups: the loop marks itself asleep (`isSleeping`, sequentially consistent)
 and then looks at the queue under its lock, sleeping only if it is empty; an
 enqueuer appends under the lock and then takes the mark. One of the two always sees
 the other. A wake-up for a loop that did not sleep after all costs one spare event.

 After the loop has stopped, jobs go to the global pool, so a task that still
 prefers the loop finishes there instead of waiting for a thread that is gone.
 */

/// The run queue of an `EventLoop` acting as a `TaskExecutor`.
final class LoopJobs: Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var isStopped = false
    }

    private let queue = Mutex(Queue())
    private let isSleeping = Atomic<Bool>(false)
    /// Whether a job is queued, for `awaitJob` to poll without the lock.
    private let hasJobs = Atomic<Bool>(false)
    /// Requests begun on the loop's thread and not yet answered (`EventLoop.answering`).
    private let answersInFlight = Atomic<Int>(0)
    /// How many times `enqueue` wrote the eventfd (for tests).
    let wakes = Atomic<Int>(0)
    /// The loop's eventfd; written to wake it from `epoll_wait`.
    private let wakeFD: Int32

    init(wakeFD: Int32) {
        self.wakeFD = wakeFD
    }

    /// Queues `job` for the loop's thread, waking it if it sleeps; to the global pool once stopped.
    func enqueue(_ job: UnownedJob) {
        let isStopped = queue.withLock { q in
            if !q.isStopped {
                q.jobs.append(job)
                hasJobs.store(true, ordering: .releasing)
            }
            return q.isStopped
        }
        if isStopped { return globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if isSleeping.exchange(false, ordering: .sequentiallyConsistent) {
            wakes.add(1, ordering: .relaxed)
            wake()
        }
    }

    /// Writes the eventfd (the loop reads it back in `drainWake`).
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Resets the eventfd after `epoll_wait` reported it (it is level-triggered).
    func drainWake() {
        var value: UInt64 = 0
        _ = Glibc.read(wakeFD, &value, 8)
    }

    /// On the loop's thread, before `epoll_wait`: marks it asleep and tells whether it may
    /// sleep (no job queued). Pair with `awake()` after the wait.
    func maySleep() -> Bool {
        isSleeping.store(true, ordering: .sequentiallyConsistent)
        let isEmpty = queue.withLock { $0.jobs.isEmpty }
        if !isEmpty { isSleeping.store(false, ordering: .sequentiallyConsistent) }
        return isEmpty
    }

    /// On the loop's thread, after `epoll_wait`.
    func awake() {
        isSleeping.store(false, ordering: .sequentiallyConsistent)
    }

    /// On the loop's thread: runs the jobs queued so far (jobs they queue run next round,
    /// after the loop has looked at its sockets again). `spare` is reused between rounds.
    func runQueued(on executor: UnownedTaskExecutor, spare: inout [UnownedJob]) {
        queue.withLock { q in
            swap(&q.jobs, &spare)
            hasJobs.store(false, ordering: .relaxed)
        }
        for job in spare { job.runSynchronously(on: executor) }
        spare.removeAll(keepingCapacity: true)
    }

    /// Counts a request begun on the loop's thread until `answered()`.
    func answering() { answersInFlight.add(1, ordering: .relaxed) }
    func answered() { answersInFlight.subtract(1, ordering: .relaxed) }

    /// On the loop's thread, after `runQueued`: while a request begun here waits for work
    /// handed elsewhere (a reader's read), polls the queue for up to `spin` before the loop
    /// may sleep, so the resume that is about to come needs no eventfd write and finds
    /// the loop awake. With no request waiting, returns at once (an idle loop never spins).
    func awaitJob(spinNanoseconds: UInt64) {
        // One request in flight: one client's serial requests, whose resume is all the
        // loop waits for. With more, the loop has other work coming and wake-ups are
        // shared by the requests in flight; it must not hold sockets unpolled for them.
        guard spinNanoseconds > 0, answersInFlight.load(ordering: .relaxed) == 1,
              !hasJobs.load(ordering: .relaxed) else { return }
        let deadline = Self.now() &+ spinNanoseconds
        var spins = 0
        while !hasJobs.load(ordering: .acquiring) {
            spins &+= 1
            if spins & 31 == 0, Self.now() >= deadline { return }
            // A yield, not a bare pause: the reader may have been woken on this core.
            sched_yield()
        }
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Stops queueing: jobs queued and to come go to the global pool.
    func stop() {
        let left = queue.withLock { q in
            q.isStopped = true
            defer { q.jobs = [] }
            return q.jobs
        }
        for job in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}
