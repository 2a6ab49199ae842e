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
    /// `credentials`: `name:password` used with peers (the same admin on each device,
    /// or a pairing's credentials).
    public var credentials: String?
    /// `trust_advertised_fingerprint`: whether a peer's TLS service may be used with
    /// the fingerprint its TXT record advertises as the pin (trust on first sight:
    /// opt-in, never silent). Off: peers are synced over their plain HTTP service.
    public var trustAdvertisedFingerprint = false

    public init() {}

    /// The databases to advertise, among `existing`.
    func advertised(among existing: [String]) -> [String] {
        let wanted = databases.map(Set.init)
        return existing.filter { name in
            if let wanted { return wanted.contains(name) || sync.contains(name) }
            return !name.hasPrefix("_")
        }.sorted()
    }
}
