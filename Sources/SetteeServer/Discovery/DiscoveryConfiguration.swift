internal import SetteeReplicator
import FoundationEssentials

/// `[discovery]`: DNS-SD publishing and browsing, and replication with what is found.
public struct DiscoveryConfiguration: Sendable {
    /// `enabled`: publish `type` on each bound port and browse for peers.
    public var enabled = false
    /// `name`: the instance name; by default "Settee on HOST" (from the host name,
    /// never a person's name).
    public var instanceName: String?
    /// `type`: the DNS-SD service type.
    public var type = "_couchdb._tcp"
    /// `databases`: the databases advertised in `path` entries; nil (`*`) for every
    /// database but the system ones (`_users`, `_replicator`...).
    public var databases: [String]? = []
    /// `sync`: databases kept in continuous two-way replication with every peer that
    /// advertises them.
    public var sync: [String] = []
    /// `credentials`: `name:password` used with peers (the same admin on each device),
    /// or the URL `settee pair` printed on a peer: its userinfo, and its `#fp=` pin,
    /// which lets this server sync with that peer's TLS service.
    public var credentials: String?
    /// `trust_advertised_fingerprint`: whether a peer's TLS service may be used with
    /// the fingerprint its TXT record advertises as the pin (trust on first sight:
    /// opt-in, never silent). Off: peers are synced over their plain HTTP service.
    public var trustAdvertisedFingerprint = false
    /// `topology`: `mesh` (every device pulls from and pushes to every other: N(N-1) pairs of
    /// jobs), `pull` (every device only pulls from every other: each pair is synced by its two
    /// pulls, one on each side, N(N-1) jobs in all and each change sent once each way) or `hub`
    /// (every device syncs with one elected device only, the one with the lowest server uuid
    /// among those present and answering; it syncs with all: 2(N-1) jobs in all).
    public var topology = Topology.mesh

    public enum Topology: String, Sendable, CaseIterable { case mesh, pull, hub }

    /// The directions this server replicates in with each peer it syncs with: `pull` leaves
    /// the way out to the peer's own pull.
    var directions: [ReplicationDirection] { topology == .pull ? [.pull] : [.pull, .push] }

    /// One way of a pair's replication, as this server runs it (`discovery+UUID+DB+DIRECTION`).
    enum ReplicationDirection: String, Sendable { case pull, push }

    public init() {}

    /// `credentials` as a name and password, whichever form it was given in.
    var peerCredentials: (name: String, password: String)? {
        guard let credentials else { return nil }
        if credentials.contains("://") {
            guard let url = URLComponents(string: credentials),
                  let name = url.percentEncodedUser.flatMap(URLText.percentDecoded) else { return nil }
            return (name, url.percentEncodedPassword.flatMap(URLText.percentDecoded) ?? "")
        }
        guard let colon = credentials.firstIndex(of: ":") else { return nil }
        return (String(credentials[..<colon]), String(credentials[credentials.index(after: colon)...]))
    }

    /// The fingerprint a pairing URL in `credentials` pins (`#fp=HEX`), as lower-case hex without colons.
    var pairedFingerprint: String? {
        guard let credentials, credentials.contains("://"), let fragment = URLComponents(string: credentials)?.fragment,
              let fp = fragment.split(separator: "&").first(where: { $0.lowercased().hasPrefix("fp=") }) else { return nil }
        return Self.comparable(String(fp.dropFirst(3)))
    }

    /// Whether this server may sync with a TLS service advertising `fingerprint`:
    /// trusted on sight when configured so, or the one a pairing URL names.
    func trusts(advertised fingerprint: String?) -> Bool {
        if trustAdvertisedFingerprint { return true }
        guard let fingerprint, let paired = pairedFingerprint else { return false }
        return Self.comparable(fingerprint) == paired
    }

    static func comparable(_ fingerprint: String) -> String { fingerprint.filter { $0 != ":" }.lowercased() }

    /// The databases to advertise, among `existing`.
    func advertised(among existing: [String]) -> [String] {
        let wanted = databases.map(Set.init)
        return existing.filter { name in
            if let wanted { return wanted.contains(name) || sync.contains(name) }
            return !name.hasPrefix("_")
        }.sorted()
    }
}
