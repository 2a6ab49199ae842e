import Glibc
@testable import SetteeHTTP
import Testing

/// The socket layer under the HTTP server: options on accepted sockets, and reads
/// that skip the `recv` expected to fail after a short read.
@Suite struct SocketTests {
    /// CouchDB's `[chttpd] socket_options` include `{nodelay, true}`; so do ours.
    @Test func acceptedSocketsHaveNagleOff() async throws {
        try await Self.withConnection { socket, _ in
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            #expect(getsockopt(socket.socket.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0)
            #expect(value == 1)
        }
    }

    /// A read after a short one waits for readiness; bytes sent later and the end of
    /// the stream still arrive, each as soon as it is there (not at the deadline).
    @Test func readsAfterAShortReadSeeLaterBytesAndTheEnd() async throws {
        try await Self.withConnection { socket, client in
            let deadline = ContinuousClock.now + .seconds(20)

            Self.send("abc", on: client)
            #expect(try await socket.read(deadline: deadline) == Array("abc".utf8))
            Self.send("de", on: client)
            #expect(try await socket.read(deadline: deadline) == Array("de".utf8))
            // Data and FIN together: the read after the data must report the end at once.
            Self.send("f", on: client)
            shutdown(client, Int32(SHUT_WR))
            var rest: [UInt8] = []
            while true {
                let bytes = try await socket.read(deadline: deadline)
                if bytes.isEmpty { break }
                rest += bytes
            }
            #expect(rest == Array("f".utf8))
            #expect(ContinuousClock.now < deadline)
        }
    }

    /// Runs `body` with the server side of a loopback connection, accepted and
    /// registered with a running event loop, and the client's blocking fd.
    private static func withConnection(_ body: (AsyncSocket, Int32) async throws -> Void) async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let (listener, client) = try listenerAndClient(loop: loop)
        defer { listener.close(); close(client) }
        let (accepted, peer) = try await listener.accept()
        let socket = try AsyncSocket(accepted, peer: peer, loop: loop)
        defer { socket.close() }
        try await body(socket, client)
    }

    /// A listener on a free loopback port and a blocking client connected to it.
    private static func listenerAndClient(loop: EventLoop) throws -> (AsyncSocket, Int32) {
        let socket = try Socket.listen(address: "127.0.0.1", port: 0)
        let address = try SocketAddress(host: "127.0.0.1", port: try socket.localPort())
        let listener = try AsyncSocket(socket, peer: "listener", loop: loop)
        let client = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard address.withSockaddr({ connect(client, $0, $1) }) == 0 else {
            close(client)
            listener.close()
            throw HTTPError.socket(call: "connect", errno: errno)
        }
        return (listener, client)
    }

    private static func send(_ text: String, on fd: Int32) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
