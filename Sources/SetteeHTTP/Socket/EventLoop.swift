internal import Glibc
internal import CEpoll
internal import Synchronization

/*
 EventLoop: one dedicated thread blocked in epoll_wait, never the cooperative pool
 (STYLE rule 17). Tasks do the socket syscalls themselves on non-blocking fds and
 only suspend, through `IOWaiter.wait`, after EAGAIN (STYLE rule 19).

 Registration is EDGE-triggered (EPOLLET) for EPOLLIN|EPOLLRDHUP, once per fd, for
 the fd's whole life: no epoll_ctl per wait, and an idle keep-alive connection costs
 one registry entry plus one suspended task. Because an edge is reported once,
 `IOWaiter` remembers edges that nobody was waiting for. EPOLLOUT is added (one
 EPOLL_CTL_MOD, kept from then on) only once a write to the fd has met EAGAIN: with
 it from the start, every ACK freeing send-buffer space was an event for this thread,
 10,000 of them after one change fanned out to 10,000 feeds (perf, issue 45), for
 sockets that never fill. The MOD reports the fd at once if it is writable by then
 (epoll_ctl(2) re-checks readiness), so a write waiting after EAGAIN misses nothing.

 Timeouts: epoll_wait sleeps until the earliest deadline pending (`TimedWaiters`:
 a wait whose deadline is earlier than the planned wake writes the eventfd), not a
 fixed tick, and forever when none is pending; the loop then resumes waiters whose
 deadline passed with `HTTPError.timedOut`, looking only at those that may have one
 pending. Timeouts are accurate to one tick (50 ms, `TimedWaiters.slack`), which is
 plenty for idle/header/body limits in seconds.

 One loop serves a whole server. It is also a `TaskExecutor` (`LoopJobs`): a
 plain-HTTP connection's task prefers it, so the loop's thread runs that task's
 light requests (parse, a document `GET`'s handler, send) right where its socket's
 readiness is seen; its other requests go to the pool's threads.
 */

/// An epoll reactor thread that wakes tasks waiting for socket readiness, and runs the
/// tasks that prefer it as their executor.
final class EventLoop: TaskExecutor, Sendable {
    static let tick: Duration = .milliseconds(50)
    private let epollFD: Int32
    private let wakeFD: Int32
    private let waiters = Mutex<[Int32: IOWaiter]>([:])
    private let timed: TimedWaiters
    private let isStopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    /// The loop thread's `pthread_self()`, 0 before it starts.
    private let threadID = Atomic<UInt>(0)
    private let jobs: LoopJobs
    /// How many times `epoll_wait` has returned (for tests: an idle loop must not tick).
    let wakeUps = Atomic<Int>(0)

    /// How long this loop polls its queue for a resume (`spinNanoseconds` by default).
    private let spin: UInt64

    /// - Parameter spin: how long the loop polls its queue for a resume while a request
    ///   begun on it waits for a reader (`LoopJobs.awaitJob`); 0 never.
    /// - Throws: `HTTPError.socket` when epoll or eventfd cannot be created.
    init(spin: UInt64 = EventLoop.spinNanoseconds) throws(HTTPError) {
        self.spin = spin
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard ep >= 0 else { throw .socket(call: "epoll_create1", errno: errno) }
        let wake = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wake >= 0 else { Glibc.close(ep); throw .socket(call: "eventfd", errno: errno) }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wake))
        guard epoll_ctl(ep, EPOLL_CTL_ADD, wake, &event) == 0 else {
            Glibc.close(ep); Glibc.close(wake)
            throw .socket(call: "epoll_ctl", errno: errno)
        }
        epollFD = ep
        wakeFD = wake
        let jobs = LoopJobs(wakeFD: wake)
        self.jobs = jobs
        timed = TimedWaiters(slack: Self.tick, wakeLoop: { jobs.wake() })
    }

    /// The descriptors are closed here, not in `stop`: a task resuming a job on a loop that
    /// is stopping may still write the eventfd (`LoopJobs.wake`), and a connection still
    /// deregister from the epoll set. Closed at `stop`, those numbers could already belong
    /// to another socket or another server's loop by then: eight bytes written into a
    /// client's connection, or another loop's registration removed. Whatever can still make
    /// those calls holds this loop, so the descriptors outlive them.
    deinit {
        timed.close()
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
    }

    /// How many times a job enqueued from another thread wrote the eventfd (for tests).
    var eventfdWakes: Int { jobs.wakes.load(ordering: .relaxed) }

    /// The epoll and eventfd descriptors (for tests).
    var descriptors: (epoll: Int32, wake: Int32) { (epollFD, wakeFD) }

    /// Runs `job` on the loop's thread (a task that prefers this loop); see `LoopJobs`.
    func enqueue(_ job: consuming ExecutorJob) {
        jobs.enqueue(UnownedJob(job))
    }

    /// How long the loop polls its queue for a resume while a request begun on it waits
    /// for a reader (`LoopJobs.awaitJob`).
    /// About three times a point read's time on a reader that needs no wake-up; a read
    /// that takes longer costs one eventfd wake, as before.
    static let spinNanoseconds: UInt64 = 60_000

    /// Runs `answer` counted as a request in flight on this loop (`LoopJobs.awaitJob`)
    /// when the caller runs on the loop's thread; otherwise just runs it.
    func answering<T>(_ answer: () async -> T) async -> T {
        guard isCurrentThread else { return await answer() }
        jobs.answering()
        defer { jobs.answered() }
        return await answer()
    }

    /// Whether the caller runs on this loop's thread.
    var isCurrentThread: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Whether the caller runs on any event loop's thread (which must never block).
    static var isOnLoopThread: Bool { pthread_getspecific(threadKey) != nil }

    /// Set, on a loop's thread, to that loop (unretained: the thread holds it while it runs).
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Starts the loop thread.
    func start() throws(HTTPError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            guard let raw else { return nil }
            let loop = Unmanaged<EventLoop>.fromOpaque(raw).takeRetainedValue()
            loop.runLoop()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw .socket(call: "pthread_create", errno: rc)
        }
        thread.withLock { $0 = tid }
    }

    /// Registers `fd` for its whole life; pair with `deregister`.
    func register(fd: Int32) throws(HTTPError) -> IOWaiter {
        let waiter = IOWaiter(fd: fd, timed: timed)
        waiters.withLock { $0[fd] = waiter }
        let mask = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        var event = epoll_event(events: mask, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let code = errno
            _ = waiters.withLock { $0.removeValue(forKey: fd) }
            throw .socket(call: "epoll_ctl", errno: code)
        }
        return waiter
    }

    /// Adds EPOLLOUT to `waiter`'s registration, once: call after a write met EAGAIN,
    /// before waiting for `.write`. A failure fails the waiter (the fd is unusable).
    func watchWritable(_ waiter: IOWaiter) {
        guard !waiter.watchesWritable.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let mask = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        var event = epoll_event(events: mask, data: epoll_data_t(fd: waiter.fd))
        if epoll_ctl(epollFD, EPOLL_CTL_MOD, waiter.fd, &event) != 0 { waiter.fail(.socket(call: "epoll_ctl", errno: errno)) }
    }

    /// Removes `waiter` before its fd is closed, so a reused fd number never reaches it.
    func deregister(_ waiter: IOWaiter) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, waiter.fd, nil)
        waiters.withLock { if $0[waiter.fd] === waiter { $0[waiter.fd] = nil } }
        waiter.fail(.connectionClosed)
        timed.remove(waiter)
    }

    /// Stops the thread and waits for it to exit (unless called from it: a task on the
    /// loop that stops it lets the thread end on its own). Jobs still queued, and any
    /// enqueued later, go to the global pool.
    func stop() {
        guard !isStopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        jobs.wake()
        let tid = thread.withLock { $0 }
        if let tid, isCurrentThread {
            pthread_detach(tid)
            return
        }
        if let tid { pthread_join(tid, nil) }
        jobs.stop()
    }

    private func runLoop() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
        let capacity = 256
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        var spare: [UnownedJob] = []
        let executor = asUnownedTaskExecutor()
        while !isStopping.load(ordering: .acquiring) {
            jobs.runQueued(on: executor, spare: &spare)
            jobs.awaitJob(spinNanoseconds: spin)
            let timeout = jobs.maySleep() ? timed.timeoutMS(now: .now) : 0
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32(capacity), timeout) }
            jobs.awake()
            wakeUps.add(1, ordering: .relaxed)
            if n > 0 { dispatch(events[0..<Int(n)]) }
            timed.sweepIfDue(now: .now)
        }
        jobs.stop()
    }

    private func dispatch(_ events: ArraySlice<epoll_event>) {
        for event in events {
            let fd = event.data.fd
            if fd == wakeFD {
                jobs.drainWake()
                continue
            }
            guard let waiter = waiters.withLock({ $0[fd] }) else { continue }
            let mask = event.events
            let broken = mask & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
            waiter.signal(
                readable: broken || mask & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                writable: broken || mask & EPOLLOUT.rawValue != 0,
                peerClosed: broken || mask & EPOLLRDHUP.rawValue != 0)
        }
    }
}
