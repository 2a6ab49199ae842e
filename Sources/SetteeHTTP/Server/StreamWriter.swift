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
        if case .length = mode { written.withLock { $0 += bytes.count } }  // only a declared length is checked
        switch mode {
        case .chunked:
            try await transport.write(Self.chunk(bytes), deadline: .now + timeout)
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

extension StreamWriter {
    /// `bytes` framed as one chunk of RFC 9112 §7.1: the size in hex, CRLF, the data,
    /// CRLF. Built in one allocation: a write to 10,000 `_changes` feeds frames 10,000
    /// lines, and building the size as a String, then an array, then growing it, made
    /// three or four allocations of each.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        var digits = 1
        while bytes.count >> (4 * digits) > 0 { digits += 1 }
        return [UInt8](unsafeUninitializedCapacity: digits + bytes.count + 4) { frame, count in
            var size = bytes.count
            for index in stride(from: digits - 1, through: 0, by: -1) {
                let digit = UInt8(size & 0xF)
                frame[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                size >>= 4
            }
            frame[digits] = .cr
            frame[digits + 1] = .lf
            var end = digits + 2
            bytes.withUnsafeBufferPointer { data in
                _ = UnsafeMutableBufferPointer(rebasing: frame[end...]).initialize(fromContentsOf: data)
            }
            end += bytes.count
            frame[end] = .cr
            frame[end + 1] = .lf
            count = end + 2
        }
    }
}
