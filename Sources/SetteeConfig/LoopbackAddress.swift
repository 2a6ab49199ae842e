internal import Glibc

/// Which bind addresses only this machine can reach.
public enum LoopbackAddress {
    /// True for 127.0.0.0/8, `::1` (any spelling, bracketed or not) and `localhost`.
    public static func isLoopback(_ address: String) -> Bool {
        var text = address
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            // s_addr is in network byte order: the first octet is the lowest byte in memory.
            return withUnsafeBytes(of: &v4) { $0.first == 127 }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in
            bytes.prefix(15).allSatisfy { $0 == 0 } && bytes.last == 1
        }
    }
}
