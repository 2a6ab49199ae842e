internal import Logging
internal import Synchronization

/*
 Connection: one TCP connection, served by one task as a loop over requests
 (RFC 9112 §9.3 persistence, §9.3.2 pipelining).

   idle ──bytes──► reading head ──head──► serving ──response──► idle (keep-alive)
    │ idleTimeout       │ headerTimeout → 408, close          │ close needed → lingering close
    ▼                   │ bad framing → 400/413/431, close    ▼
   close                ▼                                   close

 Invariants:
 - `buffer[start...]` holds received bytes not yet consumed; after a request its
   leftovers are the start of the next (pipelined) request.
 - The body is pulled on demand from the handler (`RequestBody`), sending
   `100 Continue` first when asked (RFC 9110 §10.1.1). While the responder runs,
   this task waits for it, so the handler has the read side to itself.
 - Before the response, an unread body is drained if small; otherwise, or when
   the client awaits 100 Continue we never sent, the response says
   `Connection: close` (RFC 9110 §10.1.1: the server MAY close instead of reading).
 - `phase` lets `HTTPServer.shutdown()` close idle connections without racing
   a request that just arrived: it only interrupts a connection marked idle,
   and a connection only goes idle if the server is not shutting down.
 - A streamed response (a `_changes` feed: open for hours) is sent by a task of
   its own, which then goes on serving the connection, and the task that served
   the request ends. A task keeps every stack slab its deepest call needed until
   it ends (the Swift runtime's task allocator reuses them, never frees them), and
   the router's frames left about 14 KiB of them under each idle feed (heaptrack,
   issue 45); the fresh task holds only the streaming frames. `onClose` runs once,
   when whichever task serves the connection last has closed it.
 */

/// Serves the requests of one connection. Mutable state is touched by one task at a time.
final class Connection: @unchecked Sendable {
    enum Phase { case busy, idle, closing }

    let transport: any Transport
    let configuration: ServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    /// The event loop whose thread runs this connection's light requests (the task
    /// serving it prefers it as executor); nil when every request runs on the pool.
    let loop: EventLoop?
    let isServerStopping: @Sendable () -> Bool
    /// Called once the connection is closed (the server forgets it then).
    let onClose: @Sendable () -> Void
    private let phase = Mutex(Phase.busy)
    /// The producer of a streamed response while one runs; cancelled when the peer
    /// goes or the server stops, so an idle feed ends at once instead of at its next write.
    let streamProducer = Mutex<Task<Void, any Error>?>(nil)

    var buffer: [UInt8] = []
    var start = 0
    var body = BodyState(framing: .none, expectsContinue: false, maxBodyBytes: 0, maxTrailerBytes: 0)

    init(transport: any Transport, configuration: ServerConfiguration, responder: any HTTPResponder,
         logger: Logger, loop: EventLoop? = nil, isServerStopping: @escaping @Sendable () -> Bool,
         onClose: @escaping @Sendable () -> Void = {}) {
        self.loop = loop
        self.transport = transport
        self.configuration = configuration
        self.responder = responder
        var logger = logger
        logger[metadataKey: "peer"] = "\(transport.peer)"
        self.logger = logger
        self.isServerStopping = isServerStopping
        self.onClose = onClose
    }

    /// Serves requests until the connection must close, then closes it and calls
    /// `onClose`; or until a streamed response hands the connection to a task of its
    /// own (which serves on and closes it in the end).
    ///
    /// With a `loop` (the task prefers it as executor), light requests run on the loop's
    /// thread and the others on the pool; a run of requests of one kind stays where it
    /// is, so only a change of kind costs a hand-off.
    func run() async {
        var head = await nextHead()
        while let current = head {
            let step: Step
            if loop != nil, !isLight(current) {
                step = await withTaskExecutorPreference(globalConcurrentExecutor) {
                    await serveRun(from: current, light: false)
                }
            } else {
                step = await serveRun(from: current, light: true)
            }
            switch step {
            case .next(let next): head = next
            case .close: head = nil
            case .stream(let stream):
                // On the pool: a feed's producer and its writes are no loop's work.
                Task(executorPreference: globalConcurrentExecutor) { [self] in
                    guard await send(stream) else { return close() }
                    await run()
                }
                return
            }
        }
        close()
    }

    /// What a run of requests of one kind ends with.
    private enum Step {
        /// A request of the other kind, to serve elsewhere.
        case next(RequestHead)
        case close
        case stream(StreamedResponse)
    }

    /// Whether `head` may be served on the loop's thread: no body to read, and the
    /// responder calls it light.
    private func isLight(_ head: RequestHead) -> Bool {
        head.framing == .none && responder.isLight(method: head.method, target: head.target)
    }

    /// Serves `first` and the requests after it while they are of its kind (`light`).
    private func serveRun(from first: RequestHead, light: Bool) async -> Step {
        var head = first
        while true {
            switch await serve(head) {
            case .next: break
            case .close: return .close
            case .stream(let stream): return .stream(stream)
            }
            guard let next = await nextHead() else { return .close }
            if loop != nil, isLight(next) != light { return .next(next) }
            head = next
        }
    }

    private func close() {
        transport.close()
        onClose()
    }

    /// Closes the connection now if it waits for a request; otherwise the
    /// connection closes itself after the response in flight.
    /// Ends a streamed response that is waiting for something to send (shutdown).
    func stopStreaming() { streamProducer.withLock { $0 }?.cancel() }

    func closeIfIdle() {
        let wasIdle = phase.withLock { p in
            defer { if p == .idle { p = .closing } }
            return p == .idle
        }
        if wasIdle { transport.interrupt(.connectionClosed) }
    }

    private func enterIdle() -> Bool {
        phase.withLock { p in
            guard p != .closing, !isServerStopping() else { return false }
            p = .idle
            return true
        }
    }

    private func leaveIdle() -> Bool {
        phase.withLock { p in
            guard p != .closing else { return false }
            p = .busy
            return true
        }
    }

    /// Reads until a head parses. Nil when the connection should close (after any error answer).
    private func nextHead() async -> RequestHead? {
        let parser = RequestParser(limits: configuration.limits)
        var headerDeadline: ContinuousClock.Instant?
        while true {
            if start < buffer.count {
                if headerDeadline == nil {
                    guard leaveIdle() else { return nil }
                    headerDeadline = .now + configuration.headerTimeout
                }
                do {
                    if let (head, end) = try parser.parse(buffer, from: start) {
                        start = end
                        return head
                    }
                } catch {
                    await reject(error, version: .http11)
                    return nil
                }
            } else if headerDeadline == nil {
                guard enterIdle() else { return nil }
            }
            guard await receiveHeadBytes(headerDeadline: headerDeadline) else { return nil }
        }
    }

    /// One read for the head. False on end of stream, error or timeout (408 if a request had begun).
    private func receiveHeadBytes(headerDeadline: ContinuousClock.Instant?) async -> Bool {
        do {
            let bytes = try await transport.read(deadline: headerDeadline ?? .now + configuration.idleTimeout)
            if bytes.isEmpty { return false }
            compact()
            if buffer.isEmpty { buffer = bytes } else { buffer.append(contentsOf: bytes) }
            return true
        } catch let error as HTTPError where error == HTTPError.timedOut {
            // RFC 9110 §15.5.9: 408 for a request that did not complete in time.
            if headerDeadline != nil { await reject(HTTPError.timedOut, version: .http11) }
            return false
        } catch {
            return false
        }
    }

    /// Drops consumed bytes so an idle connection holds no buffer.
    func compact() {
        if start >= buffer.count {
            buffer = []
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// Answers a framing error (STYLE rule 13: never a silent close) and closes.
    func reject(_ error: any Error, version: HTTPVersion) async {
        let status: Int
        switch error as? HTTPError {
        case .headersTooLarge: status = 431  // RFC 6585 §5
        case .bodyTooLarge: status = 413  // RFC 9110 §15.5.14
        case .timedOut: status = 408  // RFC 9110 §15.5.9
        case .unsupportedTransferCoding: status = 501  // RFC 9112 §6.1
        case .versionNotSupported: status = 505  // RFC 9110 §15.6.6
        case .connectionClosed, .socket: return
        default: status = 400  // RFC 9112 §2.2, §5, §6.3
        }
        logger.info("rejected request: \(error)", metadata: ["status": "\(status)"])
        // RFC 9110 §6.6.1: an origin server with a clock sends Date, also on these.
        let response = HTTPResponse(status: status, headers: ["Content-Type": "text/plain", "Date": HTTPDate.now()],
                                    body: .bytes(Array("\(HTTPStatus.reasonPhrase(status))\n".utf8)))
        let head = ResponseHead(response: response, requestMethod: "GET", version: version, closing: true)
        try? await transport.write(head.wire, deadline: .now + configuration.bodyTimeout)
        await lingeringClose()
    }

    /// Sends FIN, then discards what the client still sends for a moment, so that
    /// closing with unread input does not reset the connection before the client
    /// has read our answer (RFC 9112 §9.6 "tear-down").
    func lingeringClose() async {
        transport.shutdownWrite()
        let deadline = ContinuousClock.now + .seconds(2)
        var discarded = 0
        while discarded < 1 << 20, let bytes = try? await transport.read(deadline: deadline), !bytes.isEmpty {
            discarded += bytes.count
        }
    }
}
