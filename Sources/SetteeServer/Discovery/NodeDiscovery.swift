internal import Glibc
import FoundationEssentials
import Logging
import SetteeDiscovery
import SetteeJSON
import SetteeReplicator
import SetteeStore
import Synchronization

/*
 The node's side of discovery: publish this server (one service per bound port, the
 TXT profile of SetteeDiscovery, kept in step with the databases as they come and
 go), browse for peers, and with `[discovery] sync` keep each listed database in
 continuous two-way replication with every peer that advertises it.

 Peers are told apart by the `uuid` of their TXT record: one server seen on two
 interfaces or ports is one peer, and this server never syncs with itself. A peer
 that leaves has its replications stopped; one that comes back (perhaps on another
 address) gets them started at once — not after a back-off timer — and they resume
 from their checkpoints, whose ids are keyed on server uuids, not addresses.
 */
final class NodeDiscovery: @unchecked Sendable {
    // @unchecked: the mutable state is in `state` (a Mutex) or set once in start().
    struct Seen: Sendable {
        var peer: DiscoveredPeer
        var since: Date
        /// The last DNS-SD report of it, or answer from it.
        var lastSeen: Date
    }

    /// The replications with one peer: where they go, and their job ids.
    struct Sync: Sendable {
        var peer: DiscoveredPeer
        var url: String
        var databases: [String]
        var jobs: [String]
    }

    /// A peer DNS-SD said left (or whose address stopped answering), shown as gone, not failing.
    struct Departed: Sendable {
        var peer: DiscoveredPeer
        var lastSeen: Date
        var why: String
    }

    struct State {
        var seen: [String: Seen] = [:]
        /// By peer uuid.
        var syncing: [String: Sync] = [:]
        /// Peers still advertised whose address does not answer: since when.
        var unanswered: [String: Date] = [:]
        /// Those unanswered long enough that their replications were stopped (`PeerWatch`).
        var away: Set<String> = []
        /// Those away because every address refuses the connection (the host is there, the
        /// server is not: it left without a goodbye heard here): listed as gone.
        var closed: Set<String> = []
        /// By peer uuid; at most `departedKept`, the oldest dropped first.
        var departed: [String: Departed] = [:]
        var publishers: [ServicePublisher] = []
        var advertised: [String] = []
        /// Instances already logged as not Settee's profile (at most `departedKept`).
        var ignored: Set<String> = []
        /// `PeerWatch`'s ticks so far.
        var ticks = 0
        /// By peer uuid: the latest meeting (`meet`) begun; an older one that ends later changes nothing.
        var meetings: [String: Int] = [:]
        /// Peers being met now (asked whether they answer).
        var meeting: Set<String> = []
        /// Peers being asked by `PeerWatch` now (a probe of one is never begun twice).
        var probing: Set<String> = []
        /// When an answer from a peer away last had the others away asked at once.
        var lastEarlyRound: Date?
        /// Peers away since they were met, never synced with (a dead or bogus advert, or a
        /// server not up yet): asked every other tick, not every tick (`PeerWatch`).
        var neverAnswered: Set<String> = []
    }

    static let departedKept = 64

    let configuration: DiscoveryConfiguration
    let uuid: String
    let directory: DatabaseDirectory
    let replications: ReplicationManager
    let logger: Logger
    let state = Mutex(State())
    /// Probes peers whose replications fail (`PeerWatch`): one session, not one per probe.
    let probes = CurlSession(maxConnections: 32, verifyTLS: false)
    var discovery: Discovery?
    var browser: ServiceBrowser?
    var watcher: Task<Void, Never>?
    var peerWatch: Task<Void, Never>?
    var tlsFingerprint: String?
    /// Serialises `start` and `stop` (a program may start and stop listeners from several tasks).
    let lifecycle = Mutex(())

    init(configuration: DiscoveryConfiguration, uuid: String, directory: DatabaseDirectory,
         replications: ReplicationManager, logger: Logger) {
        self.configuration = configuration
        self.uuid = uuid
        self.directory = directory
        self.replications = replications
        self.logger = logger
    }

    var instanceName: String {
        if let name = configuration.instanceName, !name.isEmpty { return name }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        return "Settee on \(host)"
    }

    func record(_ databases: [String], tls: Bool) -> TXTRecord {
        PeerProfile(databases: databases, uuid: uuid, usesTLS: tls, tlsFingerprint: tls ? tlsFingerprint : nil).record
    }

    /// Keeps the advertised `path` entries in step with databases created and deleted.
    func followDatabases() async {
        var seq = directory.updates.sequence
        while !Task.isCancelled {
            guard let next = await directory.updates.wait(after: seq, timeout: .seconds(60)) else { continue }
            seq = next
            let advertised = configuration.advertised(among: (try? directory.names()) ?? [])
            let publishers = state.withLock { s -> [ServicePublisher] in
                guard s.advertised != advertised else { return [] }
                s.advertised = advertised
                return s.publishers
            }
            for publisher in publishers {
                publisher.update(record(advertised, tls: publisher.configuredName.hasSuffix("(TLS)")))
            }
        }
    }

    // MARK: Peers

    func handle(_ event: PeerEvent) {
        switch event {
        case .appeared(let peer):
            guard let profile = peer.profile, let peerUUID = profile.uuid else { return ignore(peer) }
            guard peerUUID != uuid else { return }
            let wanted = syncedDatabases(profile)
            let meeting = state.withLock { s in Self.reported(peer, uuid: peerUUID, wanting: wanted, in: &s, now: Date()) }
            logger.info("discovery: peer", metadata: ["instance": "\(peer.instance)", "url": "\(peer.baseURL)",
                                                      "databases": "\(profile.databases)"])
            // The same peer reported again (another address, a record refreshed): its
            // replications go on; losing the address it is reached at, other databases, or
            // not answering (perhaps at an address that was its only one) meet it again.
            if let meeting { Task { await self.meet(peer, uuid: peerUUID, meeting: meeting) } }
            rebalance()  // a newcomer may be the hub now
        case .disappeared(let instance):
            // Our own service gone while we publish: the daemon dropped it; register again.
            for publisher in state.withLock({ $0.publishers }) where publisher.name == instance { publisher.refresh() }
            let stopped = state.withLock { s -> [String] in
                guard let gone = s.seen.removeValue(forKey: instance), let peerUUID = gone.peer.profile?.uuid,
                      !s.seen.values.contains(where: { $0.peer.profile?.uuid == peerUUID }) else { return [] }
                Self.depart(&s, peerUUID, gone.peer, lastSeen: gone.lastSeen, why: "left (DNS-SD)")
                return s.syncing.removeValue(forKey: peerUUID)?.jobs ?? []
            }
            logger.info("discovery: peer left", metadata: ["instance": "\(instance)"])
            for id in stopped { _ = replications.cancel(id: id) }
            rebalance()  // the hub may have left
        }
    }

    /// A service whose TXT record is not Settee's profile (another CouchDB, or garbage): said once.
    private func ignore(_ peer: DiscoveredPeer) {
        let first = state.withLock { s -> Bool in
            guard s.ignored.count < Self.departedKept else { return false }
            return s.ignored.insert(peer.instance).inserted
        }
        guard first else { return }
        logger.info("discovery: not syncing with a service whose TXT record is not Settee's profile (txtvers=1 and a uuid)",
                    metadata: ["instance": "\(peer.instance)", "url": "\(peer.baseURL)"])
    }

    /// Records a departed peer, forgetting the oldest past `departedKept`.
    static func depart(_ s: inout State, _ peerUUID: String, _ peer: DiscoveredPeer, lastSeen: Date, why: String) {
        s.unanswered[peerUUID] = nil
        s.away.remove(peerUUID)
        s.closed.remove(peerUUID)
        s.neverAnswered.remove(peerUUID)
        s.departed[peerUUID] = Departed(peer: peer, lastSeen: lastSeen, why: why)
        if s.departed.count > departedKept, let oldest = s.departed.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
            s.departed[oldest.key] = nil
        }
    }

    /// The `sync` databases a peer advertises.
    func syncedDatabases(_ profile: PeerProfile) -> [String] {
        configuration.sync.filter { profile.databases.contains($0) }
    }

    /// Starts (or restarts at once) the two-way replications of every `sync` database the peer
    /// advertises: a pull and a push, or (`topology = pull`) the pull only, the peer pulling the other way.
    func sync(with peer: DiscoveredPeer, uuid peerUUID: String, meeting: Int? = nil) {
        guard !configuration.sync.isEmpty, let profile = peer.profile else { return }
        if profile.usesTLS && !configuration.trusts(advertised: profile.tlsFingerprint) { return }
        let databases = syncedDatabases(profile)
        // It may have left while it was being asked whether it answers, or have been
        // reported again since (a newer meeting decides).
        let (present, wanted) = state.withLock { s in
            (s.seen.values.contains { $0.peer.profile?.uuid == peerUUID } && Self.isLatest(meeting, peerUUID, s),
             syncsWith(peerUUID, s))
        }
        guard !databases.isEmpty, present, wanted else { return }
        let base = peerURL(peer)
        var started: [String] = []
        for db in databases {
            let remote = base + "/" + URLText.percentEncoded(db)
            var pin: JSONValue = .null
            if profile.usesTLS, let fp = profile.tlsFingerprint { pin = .string(fp) }
            for direction in configuration.directions {
                let (source, target) = direction == .pull ? (remote, db) : (db, remote)
                let id = Self.jobID(peerUUID, db, direction.rawValue)
                let body: JSONObject = ["source": .string(source), "target": .string(target), "continuous": true,
                                        "create_target": true, "tls_fingerprint": pin]
                do {
                    let spec = try ReplicationSpec(body)
                    _ = replications.cancel(id: id)  // a peer that came back starts over now, not after a back-off
                    replications.startContinuous(try replications.makeReplication(spec), spec: spec, id: id)
                    started.append(id)
                } catch {
                    logger.warning("discovery: cannot sync \(db) with \(peer.instance): \(error)")
                }
            }
        }
        let dropped = state.withLock { s -> [String] in
            let previous = s.syncing[peerUUID]?.jobs ?? []
            s.syncing[peerUUID] = Sync(peer: peer, url: base, databases: databases, jobs: started)
            s.unanswered[peerUUID] = nil
            s.away.remove(peerUUID)
            s.closed.remove(peerUUID)
            s.neverAnswered.remove(peerUUID)
            return previous.filter { !started.contains($0) }
        }
        for id in dropped { _ = replications.cancel(id: id) }  // a database it no longer advertises
    }

    static func jobID(_ peerUUID: String, _ db: String, _ direction: String) -> String {
        "discovery+\(peerUUID)+\(db)+\(direction)"
    }

    func peerURL(_ peer: DiscoveredPeer) -> String {
        guard let (name, password) = configuration.peerCredentials else { return peer.baseURL }
        let userinfo = URLText.percentEncoded(name) + ":" + URLText.percentEncoded(password) + "@"
        return peer.baseURL.replacing("://", with: "://" + userinfo)
    }
}
