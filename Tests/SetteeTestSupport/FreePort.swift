internal import Glibc

/// Finds a TCP port that is free on 127.0.0.1 right now, by binding port 0 and asking
/// the kernel which port it chose. Another process could take it before the caller
/// binds it; for tests on one machine that race is rare enough, and the kernel hands
/// out ephemeral ports round-robin so the same port is not reissued at once.
public enum FreePort {
    /// A currently unused loopback port.
    /// - Throws: `TestSupportError.socket` when the probe socket fails.
    public static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError.socket("socket", errno) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw TestSupportError.socket("bind", errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Failures of the test helpers themselves (not of the server under test).
public enum TestSupportError: Error, CustomStringConvertible {
    case socket(String, Int32)
    case binaryNotFound([String])
    case timedOut(String)
    case badResponse(String)

    public var description: String {
        switch self {
        case .socket(let call, let code): "\(call) failed: errno \(code)"
        case .binaryNotFound(let tried): "settee binary not found; tried \(tried.joined(separator: ", ")) (run swift build)"
        case .timedOut(let what): "timed out: \(what)"
        case .badResponse(let why): "bad HTTP response: \(why)"
        }
    }
}
