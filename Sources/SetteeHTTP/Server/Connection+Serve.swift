internal import Logging
internal import Synchronization

/// What serving one request leaves the connection to do.
enum ServeOutcome {
    /// Read the next request.
    case next
    /// Close the connection (the answer, if any, is sent).
    case close
    /// Send this streamed response, from a task of its own (`Connection.run`).
    case stream(StreamedResponse)
}

/// A streamed response whose head and body are still to be sent, with what its access-log line needs.
struct StreamedResponse {
    let produce: @Sendable (any ResponseBodyWriter) async throws -> Void
    let head: ResponseHead
    let logLine: @Sendable (_ ms: Int64) -> String
    let started: ContinuousClock.Instant
}

extension Connection {
    /// Serves one request, or answers it with a stream for `run` to send.
    func serve(_ head: RequestHead) async -> ServeOutcome {
        let started = ContinuousClock.now
        body = BodyState(framing: head.framing, expectsContinue: head.expectsContinue,
                         maxBodyBytes: configuration.limits.maxBodyBytes,
                         maxTrailerBytes: configuration.limits.maxHeaderBytes)
        var request = HTTPRequest(
            method: head.method, target: head.target, version: head.version, headers: head.headers,
            body: RequestBody(declaredLength: head.framing.declaredLength) { [self] in try await nextBodyPiece() },
            remoteAddress: transport.peer, logger: logger)
        request.clientCertificateName = transport.clientName
        let response = if let loop { await loop.answering { await responder.respond(to: request) } }
                       else { await responder.respond(to: request) }
        let reusable = await settleBody() && head.isKeepAlive && !isServerStopping()
        let responseHead = ResponseHead(response: response, requestMethod: head.method, version: head.version,
                                        closing: !reusable)
        // One line a request: method, path, status, time, body bytes (- when streamed), and
        // what the responder adds (the user, the request id).
        let note = response.logNote.map { " " + $0 } ?? ""
        let (method, path, status) = (head.method, request.rawPath, response.status)
        if case .stream(let produce) = response.body, responseHead.mode != .none {
            return .stream(StreamedResponse(produce: produce, head: responseHead, logLine: { ms in
                "\(method) \(path) \(status) \(ms) ms - B\(note)"
            }, started: started))
        }
        var sent = true
        do {
            try await transport.write(responseHead.wire, deadline: .now + configuration.bodyTimeout)
        } catch {
            logger.debug("response not completed: \(error)")
            sent = false
        }
        let size: String
        switch response.body {
        case .empty: size = "0"
        case .bytes(let bytes): size = String(bytes.count)
        case .stream: size = "-"
        }
        logger.info("\(method) \(path) \(status) \((ContinuousClock.now - started).milliseconds) ms \(size) B\(note)")
        return await settle(sent: sent, closing: responseHead.closing)
    }

    /// After an answer: close (lingering when it was sent) or read the next request.
    private func settle(sent: Bool, closing: Bool) async -> ServeOutcome {
        guard sent, !closing else {
            if sent { await lingeringClose() }
            return .close
        }
        return .next
    }

    /// Sends a streamed response's head and body, then settles the connection.
    /// - Returns: whether the connection may read another request.
    func send(_ stream: StreamedResponse) async -> Bool {
        var sent = false
        do {
            try await transport.write(stream.head.wire, deadline: .now + configuration.bodyTimeout)
            let writer = StreamWriter(transport: transport, mode: stream.head.mode, timeout: configuration.bodyTimeout,
                                      isServerStopping: isServerStopping)
            try await runProducer { try await stream.produce(writer) }
            sent = try await writer.finish()
        } catch {
            logger.debug("response not completed: \(error)")
        }
        logger.info("\(stream.logLine((ContinuousClock.now - stream.started).milliseconds))")
        guard case .next = await settle(sent: sent, closing: stream.head.closing) else { return false }
        return true
    }

    /// Runs a stream's producer as a task that the peer's going away, or the
    /// server's stopping, cancels: a producer asleep between writes (a `_changes`
    /// feed waiting for the next change) learns of it at once.
    private func runProducer(_ produce: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await produce() }
        streamProducer.withLock { $0 = task }
        transport.onPeerClose { task.cancel() }
        // A shutdown that began before the task was published must still reach it.
        if isServerStopping() { task.cancel() }
        defer {
            transport.onPeerClose(nil)
            streamProducer.withLock { $0 = nil }
        }
        try await task.value
    }

    /// The next piece of the request body, for `RequestBody`.
    func nextBodyPiece() async throws -> [UInt8]? {
        if body.isComplete { return nil }
        if body.isBroken { throw HTTPError.truncatedBody }
        do {
            if body.expectsContinue && !body.isContinueSent {
                body.isContinueSent = true
                // RFC 9110 §10.1.1: the interim response tells the client to send the content.
                try await transport.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8),
                                       deadline: .now + configuration.bodyTimeout)
            }
            while true {
                if let piece = try takeBufferedBody() { return piece }
                if body.isComplete { return nil }
                // Bodies are read in larger pieces than heads: fewer wake-ups per megabyte
                // of upload (bench `attachments`), still bounded per connection.
                let bytes = try await transport.read(maxBytes: 256 * 1024, deadline: .now + configuration.bodyTimeout)
                guard !bytes.isEmpty else { throw HTTPError.truncatedBody }
                compact()
                // Fast path for uploads: a read wholly inside a Content-Length body, with
                // nothing buffered, is handed over as is instead of copied in and out.
                if case .length = body.framing, buffer.isEmpty, bytes.count <= body.remaining {
                    body.remaining -= bytes.count
                    body.isComplete = body.remaining == 0
                    return bytes
                }
                buffer.append(contentsOf: bytes)
            }
        } catch {
            body.isBroken = true
            throw error
        }
    }

    /// Body bytes already received, consumed from the buffer; nil when none are buffered.
    private func takeBufferedBody() throws(HTTPError) -> [UInt8]? {
        switch body.framing {
        case .none:
            body.isComplete = true
            return nil
        case .length:
            let n = min(body.remaining, buffer.count - start)
            guard n > 0 else { return nil }
            defer { start += n }
            body.remaining -= n
            body.isComplete = body.remaining == 0
            return Array(buffer[start..<(start + n)])
        case .chunked:
            var piece: [UInt8] = []
            start = try body.decoder.decode(buffer, from: start, into: &piece)
            body.isComplete = body.decoder.isComplete
            return piece.isEmpty ? nil : piece
        }
    }

    /// Reads and discards what the handler left unread, if that is cheap.
    /// - Returns: whether the connection is positioned at the next request.
    private func settleBody() async -> Bool {
        if body.isComplete { return true }
        if body.isBroken { return false }
        // The client waits for 100 Continue we never sent: it may or may not send the
        // body, so the stream position is unknown; close (RFC 9110 §10.1.1).
        if body.expectsContinue && !body.isContinueSent { return false }
        if case .length(let n) = body.framing, body.remaining > Self.drainLimit || n < 0 { return false }
        var drained = 0
        while drained <= Self.drainLimit {
            guard let piece = try? await nextBodyPiece() else { return body.isComplete }
            drained += piece.count
        }
        return false
    }

    /// Unread body bytes worth discarding to keep a connection (more is cheaper to close).
    static var drainLimit: Int { 1 << 20 }
}

/// Where the connection stands in the current request body.
struct BodyState {
    let framing: BodyFraming
    var remaining: Int
    var decoder: ChunkedDecoder
    let expectsContinue: Bool
    var isContinueSent = false
    var isComplete: Bool
    var isBroken = false

    init(framing: BodyFraming, expectsContinue: Bool, maxBodyBytes: Int, maxTrailerBytes: Int) {
        self.framing = framing
        self.remaining = framing.declaredLength ?? 0
        self.decoder = ChunkedDecoder(maxBodyBytes: maxBodyBytes, maxTrailerBytes: maxTrailerBytes)
        self.expectsContinue = expectsContinue
        self.isComplete = framing == .none || framing == .length(0)
    }
}

extension BodyFraming {
    var declaredLength: Int? {
        switch self {
        case .none: 0
        case .length(let n): n
        case .chunked: nil
        }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
