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

 Timeouts: epoll_wait wakes at least every `tick`; the loop then resumes waiters
 whose deadline passed with `HTTPError.timedOut`, looking only at those that may
 have one pending (`TimedWaiters`). Timeouts are therefore accurate
 to one tick (50 ms), which is plenty for idle/header/body limits in seconds.

 One loop serves a whole server: the syscalls and the HTTP work run on the pool's
 threads, so the loop thread only dispatches readiness.
 */

/// An epoll reactor thread that wakes tasks waiting for socket readiness.
final class EventLoop: Sendable {
    static let tick: Duration = .milliseconds(50)
    private let epollFD: Int32
    private let wakeFD: Int32
    private let waiters = Mutex<[Int32: IOWaiter]>([:])
    private let timed = TimedWaiters()
    private let isStopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)

    /// - Throws: `HTTPError.socket` when epoll or eventfd cannot be created.
    init() throws(HTTPError) {
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
    }

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

    /// Stops the thread and waits for it to exit.
    func stop() {
        guard !isStopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
        if let tid = thread.withLock({ $0 }) { pthread_join(tid, nil) }
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
    }

    private func runLoop() {
        let capacity = 256
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        let tickMS = Int32(Self.tick.components.attoseconds / 1_000_000_000_000_000)
        var nextSweep = ContinuousClock.now + Self.tick
        while !isStopping.load(ordering: .acquiring) {
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32(capacity), tickMS) }
            if n > 0 { dispatch(events[0..<Int(n)]) }
            let now = ContinuousClock.now
            if now >= nextSweep {
                nextSweep = now + Self.tick
                timed.sweep(now: now)
            }
        }
    }

    private func dispatch(_ events: ArraySlice<epoll_event>) {
        for event in events {
            let fd = event.data.fd
            if fd == wakeFD { continue }
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
