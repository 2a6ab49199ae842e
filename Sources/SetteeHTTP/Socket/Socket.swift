internal import Glibc
internal import CEpoll

/// A non-blocking TCP socket: thin wrappers over the syscalls, reporting EAGAIN as nil.
struct Socket: Sendable {
    let fd: Int32

    /// What a non-blocking call did.
    enum Outcome<T> { case done(T), wouldBlock }

    /// Opens a non-blocking listener on `address` (IPv4 or IPv6 literal) and `port`.
    /// - Throws: `HTTPError.socket` naming the failing call.
    static func listen(address: String, port: Int, backlog: Int32 = 1024) throws(HTTPError) -> Socket {
        let addr = try SocketAddress(host: address, port: port)
        let fd = Glibc.socket(addr.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                              | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(call: "socket", errno: errno) }
        let socket = Socket(fd: fd)
        do throws(HTTPError) {
            try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1)
            // One listener per family: "::" must not also claim IPv4, so "0.0.0.0" can bind too.
            if addr.family == AF_INET6 { try socket.setOption(Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
            let rc = addr.withSockaddr { Glibc.bind(fd, $0, $1) }
            guard rc == 0 else { throw HTTPError.socket(call: "cannot listen on \(address) port \(port): bind", errno: errno) }
            guard Glibc.listen(fd, backlog) == 0 else { throw HTTPError.socket(call: "listen", errno: errno) }
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    func setOption(_ level: Int32, _ name: Int32, _ value: Int32) throws(HTTPError) {
        var v = value
        guard setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .socket(call: "setsockopt", errno: errno)
        }
    }

    /// The local port (for listeners bound to port 0).
    func localPort() throws(HTTPError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw .socket(call: "getsockname", errno: errno) }
        return SocketAddress(storage: storage).port
    }

    /// Accepts one connection, already non-blocking, with the peer as text.
    func accept() throws(HTTPError) -> Outcome<(Socket, String)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                accept4(fd, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            }
        }
        if client >= 0 {
            let socket = Socket(fd: client)
            // As CouchDB's `[chttpd] socket_options = [..., {nodelay, true}]`: a streamed
            // response is several small writes (head, then chunks), and Nagle would hold
            // each behind the client's delayed ACK of the one before. Best effort: a
            // socket without it still works, only slower.
            try? socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return .done((socket, SocketAddress(storage: storage).description))
        }
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return .wouldBlock
        case let code: throw .socket(call: "accept4", errno: code)
        }
    }

    /// Reads up to `maxBytes`; an empty array means the peer closed its side.
    ///
    /// Up to 64 KiB (request heads, small bodies) is received into the thread's scratch
    /// buffer (`ReceiveScratch`) and copied out at its actual size, so the connection can keep the result
    /// as its buffer: a hundred-byte request is held in a hundred bytes, not in a
    /// 64 KiB array. Larger reads expect to fill the array and receive into it directly.
    func receive(maxBytes: Int) throws(HTTPError) -> Outcome<[UInt8]> {
        var failure: Int32 = 0
        let bytes: [UInt8]
        if maxBytes <= ReceiveScratch.size, let scratch = ReceiveScratch.forThisThread() {
            let n = recv(fd, scratch, maxBytes, 0)
            if n < 0 { failure = errno }
            bytes = Array(UnsafeRawBufferPointer(start: scratch, count: max(n, 0)))
        } else {
            bytes = [UInt8](unsafeUninitializedCapacity: maxBytes) { buffer, count in
                let n = recv(fd, buffer.baseAddress, maxBytes, 0)
                count = max(n, 0)
                if n < 0 { failure = errno }
            }
        }
        switch failure {
        case 0: return .done(bytes)
        case EAGAIN, EWOULDBLOCK, EINTR: return .wouldBlock
        case ECONNRESET, ENOTCONN, ETIMEDOUT: throw .connectionClosed
        case let code: throw .socket(call: "recv", errno: code)
        }
    }

    /// Sends what the kernel takes; MSG_NOSIGNAL turns a dead peer into EPIPE, not SIGPIPE.
    func send(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> Outcome<Int> {
        let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if n >= 0 { return .done(n) }
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR: return .wouldBlock
        case EPIPE, ECONNRESET, ENOTCONN: throw .connectionClosed
        case let code: throw .socket(call: "send", errno: code)
        }
    }

    /// Stops sending (FIN) while still reading: the first half of a lingering close.
    func shutdownWrite() { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }

    func close() { _ = Glibc.close(fd) }
}
