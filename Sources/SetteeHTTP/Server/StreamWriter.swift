internal import Synchronization

/// Writes a streamed response body to the socket, framing it as the head said.
final class StreamWriter: ResponseBodyWriter {
    private let transport: any Transport
    private let mode: ResponseHead.BodyMode
    private let timeout: Duration
    private let isServerStopping: @Sendable () -> Bool
    private let written = Mutex(0)

    init(transport: any Transport, mode: ResponseHead.BodyMode, timeout: Duration,
         isServerStopping: @escaping @Sendable () -> Bool) {
        self.transport = transport
        self.mode = mode
        self.timeout = timeout
        self.isServerStopping = isServerStopping
    }

    var isPeerClosed: Bool { transport.isPeerClosed }

    /// Sends `bytes` as one chunk; an empty write sends nothing (an empty chunk would end the body).
    /// - Throws: `HTTPError.connectionClosed` once the client is gone or the server is stopping.
    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        guard !isServerStopping(), !transport.isPeerClosed else { throw HTTPError.connectionClosed }
        written.withLock { $0 += bytes.count }
        switch mode {
        case .chunked:
            var frame = Array(String(bytes.count, radix: 16).utf8) + [.cr, .lf]
            frame.reserveCapacity(frame.count + bytes.count + 2)
            frame += bytes
            frame += [.cr, .lf]
            try await transport.write(frame, deadline: .now + timeout)
        case .length, .untilClose:
            try await transport.write(bytes, deadline: .now + timeout)
        case .none, .fixed:
            return
        }
    }

    /// Ends the body: the last chunk (RFC 9112 §7.1), or a check of the declared length.
    /// - Returns: false when the connection cannot carry another response.
    func finish() async throws -> Bool {
        switch mode {
        case .chunked:
            try await transport.write(Array("0\r\n\r\n".utf8), deadline: .now + timeout)
            return true
        case .length(let declared): return written.withLock { $0 } == declared
        case .untilClose: return false
        case .none, .fixed: return true
        }
    }
}
