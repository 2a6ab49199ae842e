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
    /// The loop's eventfd; written to wake it from `epoll_wait`.
    private let wakeFD: Int32

    init(wakeFD: Int32) {
        self.wakeFD = wakeFD
    }

    /// Queues `job` for the loop's thread, waking it if it sleeps; to the global pool once stopped.
    func enqueue(_ job: UnownedJob) {
        let isStopped = queue.withLock { q in
            if !q.isStopped { q.jobs.append(job) }
            return q.isStopped
        }
        if isStopped { return globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if isSleeping.exchange(false, ordering: .sequentiallyConsistent) { wake() }
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
        queue.withLock { swap(&$0.jobs, &spare) }
        for job in spare { job.runSynchronously(on: executor) }
        spare.removeAll(keepingCapacity: true)
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
