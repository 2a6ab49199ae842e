/// A service seen on the network: where it is and what its TXT record says.
public struct DiscoveredPeer: Sendable, Equatable {
    /// The DNS-SD instance name (unique on the link).
    public var instance: String
    /// The host name it resolved to (`host.local.`).
    public var host: String
    public var port: Int
    /// Addresses of `host`: IPv4 dotted quads first, then IPv6 (a link-local one with its
    /// zone, `fe80::1%eth0`: `PeerAddress`).
    public var addresses: [String]
    public var interfaceIndex: UInt32
    public var record: TXTRecord
    /// Settee's profile of the record; nil for a record of another profile version.
    public var profile: PeerProfile? { PeerProfile(record) }

    public init(instance: String, host: String, port: Int, addresses: [String], interfaceIndex: UInt32, record: TXTRecord) {
        self.instance = instance
        self.host = host
        self.port = port
        self.addresses = addresses
        self.interfaceIndex = interfaceIndex
        self.record = record
    }

    /// `http(s)://ADDRESS:PORT` for the first address (the host name otherwise); an IPv6
    /// one in brackets, its zone percent-encoded: `http://[fe80::1%25eth0]:5984` (RFC 6874).
    public var baseURL: String {
        let scheme = profile?.usesTLS == true ? "https" : "http"
        return "\(scheme)://\(addresses.first.map(PeerAddress.urlHost) ?? host.trimmingSuffix(".")):\(port)"
    }

    /// The same peer with `address` first (so `baseURL` uses it), the others after it in
    /// their order: the address that answered, where a host has several and listens on some.
    public func reached(at address: String) -> DiscoveredPeer {
        var peer = self
        peer.addresses = [address] + addresses.filter { $0 != address }
        return peer
    }

    /// The URL of the peer at one of its addresses.
    public func baseURL(at address: String) -> String { reached(at: address).baseURL }
}

/// What a browser reports: a peer appeared (or its record changed), or it left.
public enum PeerEvent: Sendable, Equatable {
    case appeared(DiscoveredPeer)
    case disappeared(instance: String)
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
