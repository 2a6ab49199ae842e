internal import Synchronization

/// A registered non-blocking socket whose calls suspend only on EAGAIN.
///
/// At most one task reads and one task writes at a time (the connection's task,
/// or a handler it lent the body or the stream writer to while it awaits).
final class AsyncSocket: Transport {
    let socket: Socket
    let peer: String
    private let waiter: IOWaiter
    private let loop: EventLoop
    private let isClosed = Atomic<Bool>(false)
    /// The last read took less than it asked for, so the kernel's queue was empty
    /// then; the next read waits for readiness before calling `recv`.
    private let wasDrained = Atomic<Bool>(false)

    /// Registers `socket` with `loop`; on failure the socket is closed.
    init(_ socket: Socket, peer: String, loop: EventLoop) throws(HTTPError) {
        do {
            waiter = try loop.register(fd: socket.fd)
        } catch {
            socket.close()
            throw error
        }
        self.socket = socket
        self.peer = peer
        self.loop = loop
    }

    /// True once the peer shut down its side; lets an idle stream notice a gone client.
    var isPeerClosed: Bool { waiter.isPeerClosed }

    /// Runs `action` once when the peer closes; nil clears it. See `IOWaiter.onPeerClose`.
    func onPeerClose(_ action: (@Sendable () -> Void)?) { waiter.onPeerClose(action) }

    /// Up to `maxBytes` bytes; empty at end of stream.
    /// - Throws: `HTTPError.timedOut` past `deadline`, `.connectionClosed`, `.socket`.
    ///
    /// After a short read the next one waits for readiness first, instead of calling
    /// `recv` only to get `EAGAIN`: on a keep-alive connection that was one wasted
    /// system call per request. Nothing is missed: every arrival after that short read
    /// is an edge (`EventLoop`), which `IOWaiter` keeps if nobody waits yet. A FIN or
    /// reset that came with the data read last may have no edge of its own left, so
    /// once the peer is known to have closed, `recv` runs at once and reports it.
    func read(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        if wasDrained.load(ordering: .relaxed) && !waiter.isPeerClosed {
            try await waiter.wait(for: .read, deadline: deadline)
        }
        while true {
            switch try socket.receive(maxBytes: maxBytes) {
            case .done(let bytes):
                wasDrained.store(!bytes.isEmpty && bytes.count < maxBytes, ordering: .relaxed)
                return bytes
            case .wouldBlock: try await waiter.wait(for: .read, deadline: deadline)
            }
        }
    }

    /// Writes all of `bytes`, suspending while the socket buffer is full.
    /// - Throws: `HTTPError.connectionClosed` once the peer is gone, `.timedOut` past `deadline`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws {
        var offset = 0
        while offset < bytes.count {
            let outcome = try bytes.withUnsafeBytes { raw throws(HTTPError) in
                try socket.send(UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            switch outcome {
            case .done(let n): offset += n
            case .wouldBlock:
                loop.watchWritable(waiter)
                try await waiter.wait(for: .write, deadline: deadline)
            }
        }
    }

    /// The next connection on a listening socket.
    func accept() async throws -> (Socket, String) {
        while true {
            switch try socket.accept() {
            case .done(let client): return client
            case .wouldBlock: try await waiter.wait(for: .read, deadline: nil)
            }
        }
    }

    /// Suspends until the socket is readable or writable again (for a TLS session
    /// whose library read or wrote the socket itself and got EAGAIN).
    /// - Throws: `HTTPError.timedOut` past `deadline`, or the interrupting error.
    func waitUntilReady(for direction: IOWaiter.Direction, deadline: ContinuousClock.Instant?) async throws {
        if direction == .write { loop.watchWritable(waiter) }
        try await waiter.wait(for: direction, deadline: deadline)
    }

    func shutdownWrite() { socket.shutdownWrite() }

    /// Makes pending and future waits throw `error` (used to stop idle connections and listeners).
    func interrupt(_ error: HTTPError) { waiter.fail(error) }

    /// Deregisters and closes the fd; idempotent.
    func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.deregister(waiter)
        socket.close()
    }
}
