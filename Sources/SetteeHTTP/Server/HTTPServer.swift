public import Logging
internal import Glibc
internal import Synchronization

/// An HTTP/1.1 server over non-blocking POSIX sockets and epoll.
///
/// Event-loop threads (one per two cores) wait in epoll_wait; each connection is a task that
/// serves its requests in a loop and suspends only when a socket would block.
///
///     let server = HTTPServer(configuration: config, responder: router, logger: logger)
///     let ports = try server.start()      // listening now
///     await server.run()                  // returns after shutdown()
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration
    private let responder: any HTTPResponder
    private let logger: Logger
    /// Shared with the node's other listeners, for its figures.
    private let connectionCount: ConnectionCount
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)

    private struct State {
        var loops: EventLoops?
        var listeners: [AsyncSocket] = []
        var tlsPorts: [Int] = []
        var acceptTasks: [Task<Void, Never>] = []
        var connections: [ObjectIdentifier: Connection] = [:]
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var runWaiters: [CheckedContinuation<Void, Never>] = []
        var isFinished = false
        /// When a client was last turned away for `maxConnections` (logged once a minute).
        var lastRefusalLog: ContinuousClock.Instant?
    }

    /// - Parameter connectionCount: where this server adds its open connections (a node
    ///   passes one for all its listeners); a count of its own by default.
    public init(configuration: ServerConfiguration, responder: any HTTPResponder, logger: Logger,
                connectionCount: ConnectionCount = ConnectionCount()) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.connectionCount = connectionCount
    }

    /// Binds every configured address and starts accepting.
    /// - Returns: the bound plain-HTTP port of each listener, in `bindAddresses` order
    ///   (useful with port 0); empty when only HTTPS is served. See `tlsPorts`.
    /// - Throws: `HTTPError.socket` when an address cannot be bound; nothing stays open then.
    public func start() throws -> [Int] {
        // MSG_NOSIGNAL covers our sends; this covers any other write to a dead socket.
        signal(SIGPIPE, SIG_IGN)
        let loops = try EventLoops(count: configuration.eventLoops ?? EventLoops.byDefault)
        let loop = loops.first
        var listeners: [(AsyncSocket, TLSListener?)] = []
        var ports: [Int] = []
        var tlsPorts: [Int] = []
        do {
            for address in configuration.bindAddresses {
                if configuration.servesPlainHTTP {
                    let socket = try Socket.listen(address: address, port: configuration.port)
                    listeners.append((try AsyncSocket(socket, peer: address, loop: loop), nil))
                    ports.append(try socket.localPort())
                }
                if let tls = configuration.tls {
                    let socket = try Socket.listen(address: address, port: tls.port)
                    listeners.append((try AsyncSocket(socket, peer: address, loop: loop), tls))
                    tlsPorts.append(try socket.localPort())
                }
            }
        } catch {
            listeners.forEach { $0.0.close() }
            loops.stop()
            throw error
        }
        let tasks = listeners.map { listener, tls in Task { await self.acceptLoop(listener, tls: tls, loops: loops) } }
        state.withLock { s in
            s.loops = loops
            s.listeners = listeners.map(\.0)
            s.tlsPorts = tlsPorts
            s.acceptTasks = tasks
        }
        logger.info("listening", metadata: ["addresses": "\(configuration.bindAddresses)", "ports": "\(ports)",
                                            "tls_ports": "\(tlsPorts)"])
        return ports
    }

    /// The bound HTTPS port of each address after `start()`, in `bindAddresses` order.
    public var tlsPorts: [Int] { state.withLock { $0.tlsPorts } }

    /// Suspends until the server has shut down.
    public func run() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s in
                if !s.isFinished { s.runWaiters.append(c) }
                return s.isFinished
            }
            if done { c.resume() }
        }
    }

    /// Stops accepting, lets in-flight requests finish (streams are ended on their
    /// next write), closes idle connections, and returns when all connections are closed.
    public func shutdown() async {
        if stopping.exchange(true, ordering: .acquiringAndReleasing) {
            await run()
            return
        }
        let (listeners, tasks) = state.withLock { s in (s.listeners, s.acceptTasks) }
        listeners.forEach { $0.close() }
        for task in tasks { await task.value }
        state.withLock { s in Array(s.connections.values) }.forEach { connection in
            connection.closeIfIdle()
            connection.stopStreaming()
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let empty = state.withLock { s in
                if !s.connections.isEmpty { s.drainWaiters.append(c) }
                return s.connections.isEmpty
            }
            if empty { c.resume() }
        }
        let (loops, waiters) = state.withLock { s in
            s.isFinished = true
            defer { s.runWaiters = [] }
            return (s.loops, s.runWaiters)
        }
        loops?.stop()
        waiters.forEach { $0.resume() }
        logger.info("stopped")
    }

    private func acceptLoop(_ listener: AsyncSocket, tls: TLSListener?, loops: EventLoops) async {
        var lastDescriptorError: ContinuousClock.Instant?
        while !stopping.load(ordering: .acquiring) {
            do {
                let (socket, peer) = try await listener.accept()
                admit(socket, peer: peer, tls: tls, loop: loops.next())
            } catch HTTPError.socket(let call, let code) where code == EMFILE || code == ENFILE {
                // Out of descriptors: back off instead of spinning; existing connections free some.
                // Logged once a minute at most: the retries come ten a second.
                if lastDescriptorError.map({ .now - $0 >= .seconds(60) }) ?? true {
                    lastDescriptorError = .now
                    logger.error("\(call) failed: errno \(code) (out of file descriptors); new clients wait")
                }
                try? await Task.sleep(for: .milliseconds(100))
            } catch {
                if !stopping.load(ordering: .acquiring) { logger.error("accept stopped: \(error)") }
                return
            }
        }
    }

    /// Tells a client turned away for `maxConnections` why, without waiting, and logs it
    /// once a minute at most. A plain-HTTP client gets a 503 (RFC 9110 §15.6.4). A TLS
    /// client gets a fatal `internal_error` alert and no handshake: a 503 would need the
    /// handshake first (its key exchange and signature are most of what a TLS connection
    /// costs), which is what the cap exists to save. CouchDB answers neither (mochiweb
    /// stops accepting at its `max`, so clients wait in the backlog) and nginx closes
    /// without a word when out of `worker_connections`; the alert costs one send and
    /// lets the client say the server refused instead of reporting a bare end of stream.
    private func refuse(_ socket: Socket, isTLS: Bool) {
        let answer = isTLS ? Self.tlsRefusal : Array(plainRefusal.utf8)
        answer.withUnsafeBytes { _ = try? socket.send($0) }
        // A request or ClientHello already here, unread, would make close() a reset that
        // can discard the answer at the client (RFC 1122 §4.2.2.13): read it away once.
        _ = try? socket.receive(maxBytes: 16_384)
        let mustLog = state.withLock { s in
            guard s.lastRefusalLog.map({ .now - $0 >= .seconds(60) }) ?? true else { return false }
            s.lastRefusalLog = .now
            return true
        }
        if mustLog {
            logger.warning("turning clients away: \(configuration.maxConnections) connections open, the cap (logged once a minute)")
        }
    }

    private var plainRefusal: String {
        let body = #"{"error":"service_unavailable","reason":"Too many connections (\#(configuration.maxConnections) open); retry later."}"#
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" + body
    }

    /// A plaintext alert record, as any record is before keys exist (RFC 8446 §5.1):
    /// type alert (21), legacy version 3,3, length 2, fatal (2) `internal_error` (80),
    /// "an internal error unrelated to the peer ... (such as a memory allocation
    /// failure) makes it impossible to continue" (§6.2).
    private static let tlsRefusal: [UInt8] = [21, 3, 3, 0, 2, 2, 80]

    /// Starts a connection task, or closes the socket at once when stopping or full.
    /// On an HTTPS listener the task first completes the TLS handshake, bounded by
    /// `handshakeTimeout`; a client that fails it is dropped without a word.
    private func admit(_ socket: Socket, peer: String, tls: TLSListener?, loop: EventLoop) {
        let full = state.withLock { $0.connections.count >= configuration.maxConnections }
        guard !full, !stopping.load(ordering: .acquiring) else {
            if full { refuse(socket, isTLS: tls != nil) }
            socket.close()
            return
        }
        guard let asyncSocket = try? AsyncSocket(socket, peer: peer, loop: loop) else { return }
        let transport: any Transport
        var session: TLSTransport?
        if let tls {
            guard let tlsTransport = try? TLSTransport(asyncSocket, context: tls.context,
                                                       recordLayer: tls.recordLayer) else { return }
            transport = tlsTransport
            session = tlsTransport
        } else {
            transport = asyncSocket
        }
        let id = ObjectIdentifier(asyncSocket)
        // Plain HTTP only: a TLS session's records and handshake are too much work for the loop.
        let runner = tls == nil ? loop : nil
        let connection = Connection(transport: transport, configuration: configuration, responder: responder,
                                    logger: logger, loop: runner, isServerStopping: { [self] in stopping.load(ordering: .acquiring) },
                                    onClose: { [self] in remove(id) })
        state.withLock { $0.connections[id] = connection }
        connectionCount.opened()
        // A shutdown that listed connections before this insert must still close it if idle.
        if stopping.load(ordering: .acquiring) { connection.closeIfIdle() }
        Task(executorPreference: runner) { [session, tls] in
            if let session, let tls, await !self.handshake(session, tls: tls, peer: peer) {
                self.remove(id)
                return
            }
            // It calls `remove(id)` when it closes, from whichever task serves it last.
            await connection.run()
        }
    }

    /// Completes a TLS connection's handshake within the listener's limit; false, with the
    /// session closed, when it fails.
    private func handshake(_ session: TLSTransport, tls: TLSListener, peer: String) async -> Bool {
        do {
            try await session.handshake(deadline: .now + tls.handshakeTimeout)
        } catch {
            logger.debug("TLS handshake failed", metadata: ["peer": "\(peer)", "error": "\(error)"])
            session.close()
            return false
        }
        // Which record layer carries the session (`[ssl] record_layer`, and the suite).
        logger.debug("TLS session", metadata: [
            "peer": "\(peer)", "records": "\(session.usesOwnRecords ? "settee" : "openssl")",
        ])
        return true
    }

    private func remove(_ id: ObjectIdentifier) {
        connectionCount.closed()
        let waiters = state.withLock { s in
            s.connections[id] = nil
            guard s.connections.isEmpty else { return [CheckedContinuation<Void, Never>]() }
            defer { s.drainWaiters = [] }
            return s.drainWaiters
        }
        waiters.forEach { $0.resume() }
    }
}
