internal import Glibc

/// A peer's address as DNS-SD gives it (an A or AAAA record's bytes), as text and as a URL's host.
///
/// An IPv6 link-local address (fe80::/10) means nothing without the interface it was seen on:
/// every link has the same prefix. So it carries its zone, the interface's name
/// (`fe80::1%eth0`, RFC 4007 §11), and in a URL the `%` is percent-encoded
/// (`[fe80::1%25eth0]`, RFC 6874 §2), the form libcurl and Foundation's URL parser both read.
public enum PeerAddress {
    /// `a.b.c.d` for an A record's four bytes; nil for another length.
    public static func ipv4(_ bytes: [UInt8]) -> String? {
        bytes.count == 4 ? bytes.map { String($0) }.joined(separator: ".") : nil
    }

    /// RFC 5952 text for an AAAA record's sixteen bytes, with `%NAME` of interface `interfaceIndex`
    /// when the address is link-local (nil for another length, or a link-local one whose interface has no name).
    public static func ipv6(_ bytes: [UInt8], interfaceIndex: UInt32) -> String? {
        guard bytes.count == 16 else { return nil }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        let plain = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard isLinkLocal(bytes) else { return plain }
        guard let zone = interfaceName(interfaceIndex) else { return nil }
        return plain + "%" + zone
    }

    /// fe80::/10.
    static func isLinkLocal(_ bytes: [UInt8]) -> Bool {
        bytes.count == 16 && bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
    }

    /// The interface's name (`if_indextoname`), nil for 0 or an index with no interface.
    static func interfaceName(_ index: UInt32) -> String? {
        guard index != 0 else { return nil }
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &name) != nil else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address as a URL's host: IPv4 as is, IPv6 in brackets with a zone's `%` as `%25` (RFC 6874).
    public static func urlHost(_ address: String) -> String {
        guard address.contains(":") else { return address }
        return "[" + address.replacing("%", with: "%25") + "]"
    }

    /// IPv4 addresses before IPv6 ones (each family in the order given): a peer reachable
    /// both ways keeps the IPv4 URL it had, however its records arrive.
    public static func preferred(_ addresses: [String]) -> [String] {
        addresses.filter { !$0.contains(":") } + addresses.filter { $0.contains(":") }
    }
}
