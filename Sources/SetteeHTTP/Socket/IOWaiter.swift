internal import Synchronization

/// The readiness of one file descriptor and the (at most one) task waiting to
/// read and the (at most one) task waiting to write it.
///
/// Registration is edge-triggered (see `EventLoop`), so an event that arrives
/// while nobody waits is remembered in `readReady`/`writeReady`; a waiter that
/// finds the flag set consumes it and retries its syscall at once. A stale flag
/// costs one extra EAGAIN and never a lost wake-up.
///
/// Continuations are unchecked (no canary object per wait, on every request's
/// path): each is stored in exactly one slot under the lock and taken out of it
/// by exactly one of `wait`, `signal`, `expire` or `fail` before it is resumed.
final class IOWaiter: Sendable {
    enum Direction: Sendable { case read, write }

    private struct State {
        var readReady = false
        var writeReady = false
        var reader: UnsafeContinuation<Void, any Error>?
        var writer: UnsafeContinuation<Void, any Error>?
        var readDeadline: ContinuousClock.Instant?
        var writeDeadline: ContinuousClock.Instant?
        /// Once set, every pending and future wait throws it (socket closed, server stopping).
        var failure: HTTPError?
        var isPeerClosed = false
        /// Run once when the peer goes (a streamed response's producer is cancelled by it).
        var peerCloseAction: (@Sendable () -> Void)?
    }

    let fd: Int32
    /// Where a wait with a deadline makes this waiter known to the loop's sweep.
    private let timed: TimedWaiters?
    /// Whether the fd's registration includes EPOLLOUT (`EventLoop.watchWritable`).
    let watchesWritable = Atomic<Bool>(false)
    private let state = Mutex(State())

    init(fd: Int32, timed: TimedWaiters? = nil) {
        self.fd = fd
        self.timed = timed
    }

    /// The earliest deadline of the waits pending (read, write), nil when none has one.
    func pendingDeadline() -> ContinuousClock.Instant? {
        state.withLock { s in
            var earliest: ContinuousClock.Instant?
            if s.reader != nil, let deadline = s.readDeadline { earliest = deadline }
            if s.writer != nil, let deadline = s.writeDeadline { earliest = min(earliest ?? deadline, deadline) }
            return earliest
        }
    }

    /// True once the peer has shut down its sending side (EPOLLRDHUP) or reset.
    var isPeerClosed: Bool { state.withLock { $0.isPeerClosed } }

    /// Runs `action` once when the peer closes (at once if it already has); nil clears it.
    func onPeerClose(_ action: (@Sendable () -> Void)?) {
        let runNow = state.withLock { s -> Bool in
            s.peerCloseAction = s.isPeerClosed ? nil : action
            return s.isPeerClosed && action != nil
        }
        if runNow { action?() }
    }

    /// Suspends until `direction` may make progress.
    /// - Throws: `HTTPError.timedOut` past `deadline`, or the failure set by `fail(_:)`.
    func wait(for direction: Direction, deadline: ContinuousClock.Instant?) async throws {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let immediate: Result<Void, HTTPError>? = state.withLock { s in
                if let failure = s.failure { return .failure(failure) }
                switch direction {
                case .read:
                    if s.readReady { s.readReady = false; return .success(()) }
                    precondition(s.reader == nil, "two tasks read one socket")
                    s.reader = continuation
                    s.readDeadline = deadline
                case .write:
                    if s.writeReady { s.writeReady = false; return .success(()) }
                    precondition(s.writer == nil, "two tasks write one socket")
                    s.writer = continuation
                    s.writeDeadline = deadline
                }
                return nil
            }
            if let immediate { continuation.resume(with: immediate) } else if let deadline { timed?.add(self, deadline: deadline) }
        }
    }

    /// Called by the event-loop thread with the epoll event mask.
    func signal(readable: Bool, writable: Bool, peerClosed: Bool) {
        let (reader, writer, action) = state.withLock { s in
            var action: (@Sendable () -> Void)?
            if peerClosed {
                s.isPeerClosed = true
                action = s.peerCloseAction
                s.peerCloseAction = nil
            }
            var r: UnsafeContinuation<Void, any Error>?, w: UnsafeContinuation<Void, any Error>?
            if readable { if let c = s.reader { r = c; s.reader = nil } else { s.readReady = true } }
            if writable { if let c = s.writer { w = c; s.writer = nil } else { s.writeReady = true } }
            return (r, w, action)
        }
        reader?.resume()
        writer?.resume()
        action?()
    }

    /// Resumes waiters whose deadline has passed with `HTTPError.timedOut`.
    func expire(now: ContinuousClock.Instant) {
        let (reader, writer) = state.withLock { s in
            var r: UnsafeContinuation<Void, any Error>?, w: UnsafeContinuation<Void, any Error>?
            if let d = s.readDeadline, d <= now, let c = s.reader { r = c; s.reader = nil; s.readDeadline = nil }
            if let d = s.writeDeadline, d <= now, let c = s.writer { w = c; s.writer = nil; s.writeDeadline = nil }
            return (r, w)
        }
        reader?.resume(throwing: HTTPError.timedOut)
        writer?.resume(throwing: HTTPError.timedOut)
    }

    /// Makes every pending and future wait throw `error`.
    func fail(_ error: HTTPError) {
        let (reader, writer) = state.withLock { s in
            if s.failure == nil { s.failure = error }
            defer { s.reader = nil; s.writer = nil }
            return (s.reader, s.writer)
        }
        reader?.resume(throwing: error)
        writer?.resume(throwing: error)
    }
}
