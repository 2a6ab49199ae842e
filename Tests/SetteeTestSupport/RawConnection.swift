public import Foundation
import Glibc

/// A raw TCP connection for tests that need what `TestHTTPClient` hides:
/// hostile framing, keep-alive reuse, and streamed responses read as they come.
///
///     let c = try RawConnection(port: port)
///     try c.send("GET /_up HTTP/1.1\r\nHost: x\r\n\r\n")
///     let head = try c.read(until: { $0.contains("\r\n\r\n") }, timeout: 5)
public final class RawConnection {
    let fd: Int32
    /// Everything received so far, as text (bodies in these tests are UTF-8).
    public private(set) var received = ""

    public init(port: Int, timeout: TimeInterval = 30) throws {
        fd = try TestHTTPClient.connect(host: "127.0.0.1", port: port, timeout: timeout)
    }

    deinit { close(fd) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }
    public func send(_ bytes: [UInt8]) throws { try TestHTTPClient.sendAll(fd, bytes) }

    /// Reads until `done(received)` holds, the peer closes, or `timeout` passes.
    /// - Returns: whether `done` held.
    @discardableResult
    public func read(until done: (String) -> Bool, timeout: TimeInterval) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !done(received) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, left * 1000))) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return done(received) }
            if n < 0 { if errno == EINTR { continue }; throw TestSupportError.socket("recv", errno) }
            received += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return true
    }

    /// Whether the server closed the connection within `timeout`.
    public func isClosedByPeer(timeout: TimeInterval) throws -> Bool {
        var closed = false
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while deadline.timeIntervalSinceNow > 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { closed = true; break }
            if n < 0 { closed = errno == ECONNRESET; break }
            received += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return closed
    }
}

extension RawConnection {
    /// Half-closes the connection: the server sees the end of the request stream.
    public func shutdownWrite() { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
}
