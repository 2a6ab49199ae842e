internal import Glibc

/// An IPv4 or IPv6 address and port, parsed from and printed as text.
struct SocketAddress: Sendable, CustomStringConvertible {
    private var storage = sockaddr_storage()

    /// Parses a numeric host (`127.0.0.1`, `::1`, `[::1]`); names are not resolved.
    /// - Throws: `HTTPError.socket(call: "inet_pton", errno: EINVAL)` for anything else.
    init(host: String, port: Int) throws(HTTPError) {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        let netPort = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        if text.contains(":") {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = netPort
            guard inet_pton(AF_INET6, text, &sin6.sin6_addr) == 1 else { throw .socket(call: "inet_pton", errno: EINVAL) }
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sin6) { dst.copyMemory(from: $0) } }
        } else {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = netPort
            guard inet_pton(AF_INET, text, &sin.sin_addr) == 1 else { throw .socket(call: "inet_pton", errno: EINVAL) }
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sin) { dst.copyMemory(from: $0) } }
        }
    }

    init(storage: sockaddr_storage) { self.storage = storage }

    var family: Int32 { Int32(storage.ss_family) }

    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            family == AF_INET6
                ? Int(UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in6.self).sin6_port))
                : Int(UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_port))
        }
    }

    /// `127.0.0.1:5984` or `[::1]:5984`.
    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                var addr = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
            } else {
                var addr = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
            }
        }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        let length = family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        return withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(length))
        }
    }
}
