import Dispatch
import Glibc
@testable import SetteeHTTP

/// A blocking test client on its own dispatch queue, so its blocking syscalls
/// never occupy the cooperative pool the server under test runs on.
final class RawClient: @unchecked Sendable {
    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    private let fd: Int32
    private let queue = DispatchQueue(label: "RawClient")
    private var buffer: [UInt8] = []

    init(host: String = "127.0.0.1", port: Int) throws {
        let address = try SocketAddress(host: host, port: port)
        fd = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = address.withSockaddr { connect(fd, $0, $1) }
        guard rc == 0 else { close(fd); throw HTTPError.socket(call: "connect", errno: errno) }
    }

    deinit { close(fd) }

    func send(_ text: String) async { await send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) async {
        await queue.run { _ = bytes.withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
    }

    /// Reads one response; `head` for responses to HEAD (no body).
    func response(head: Bool = false) async throws -> Response {
        try await queue.run { try self.readResponse(head: head) }
    }

    /// Everything until the server closes (empty when it already has).
    func readToEnd() async -> String {
        await queue.run {
            while self.fill() {}
            defer { self.buffer = [] }
            return String(decoding: self.buffer, as: UTF8.self)
        }
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    private func line() throws -> String {
        while true {
            if let lf = buffer.firstIndex(of: 10) {
                defer { buffer.removeFirst(lf + 1) }
                return String(decoding: buffer[..<lf], as: UTF8.self).trimmingSuffix("\r")
            }
            guard fill() else { throw HTTPError.connectionClosed }
        }
    }

    private func take(_ n: Int) throws -> [UInt8] {
        while buffer.count < n { guard fill() else { throw HTTPError.truncatedBody } }
        defer { buffer.removeFirst(n) }
        return Array(buffer[..<n])
    }

    private func readResponse(head: Bool) throws -> Response {
        let status = try line().split(separator: " ")
        guard status.count >= 2, let code = Int(status[1]) else { throw HTTPError.malformedRequest("status") }
        var headers = HTTPHeaders()
        while case let field = try line(), !field.isEmpty {
            let parts = field.split(separator: ":", maxSplits: 1)
            headers.add(String(parts[0]), parts.count > 1 ? String(parts[1].drop { $0 == " " }) : "")
        }
        if head || code == 100 || code == 204 { return Response(status: code, headers: headers, body: "") }
        var body: [UInt8] = []
        if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            body = try take(length)
        } else if headers["Transfer-Encoding"] == "chunked" {
            while let size = Int(try line(), radix: 16), size > 0 {
                body += try take(size)
                _ = try line()
            }
            _ = try line()
        } else {
            while fill() {}
            body = buffer
            buffer = []
        }
        return Response(status: code, headers: headers, body: String(decoding: body, as: UTF8.self))
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
