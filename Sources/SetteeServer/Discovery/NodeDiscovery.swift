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
    }

    struct State {
        var seen: [String: Seen] = [:]
        /// Replication job ids running with each peer uuid.
        var syncing: [String: [String]] = [:]
        var publishers: [ServicePublisher] = []
        var advertised: [String] = []
    }

    let configuration: DiscoveryConfiguration
    private let uuid: String
    private let directory: DatabaseDirectory
    private let replications: ReplicationManager
    private let logger: Logger
    private let state = Mutex(State())
    private var discovery: Discovery?
    private var browser: ServiceBrowser?
    private var watcher: Task<Void, Never>?
    private var tlsFingerprint: String?

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

    func start(ports: [Int], tlsPorts: [Int], tlsFingerprint: String?) {
        self.tlsFingerprint = tlsFingerprint
        let discovery = Discovery(logger: logger)
        self.discovery = discovery
        let advertised = configuration.advertised(among: (try? directory.names()) ?? [])
        var publishers: [ServicePublisher] = []
        for port in Set(ports).sorted() {
            publishers.append(discovery.publish(name: instanceName, type: configuration.type, port: port,
                                                record: record(advertised, tls: false)))
        }
        for port in Set(tlsPorts).sorted() {
            publishers.append(discovery.publish(name: instanceName + " (TLS)", type: configuration.type, port: port,
                                                record: record(advertised, tls: true)))
        }
        state.withLock {
            $0.publishers = publishers
            $0.advertised = advertised
        }
        watcher = Task { await self.followDatabases() }
        browser = discovery.browse(type: configuration.type) { [weak self] event in self?.handle(event) }
    }

    func stop() {
        watcher?.cancel()
        browser?.stop()
        let (publishers, jobs) = state.withLock { s in (s.publishers, s.syncing.values.flatMap { $0 }) }
        publishers.forEach { $0.withdraw() }
        for id in jobs { _ = replications.cancel(id: id) }
        discovery?.stop()
    }

    private func record(_ databases: [String], tls: Bool) -> TXTRecord {
        PeerProfile(databases: databases, uuid: uuid, usesTLS: tls, tlsFingerprint: tls ? tlsFingerprint : nil).record
    }

    /// Keeps the advertised `path` entries in step with databases created and deleted.
    private func followDatabases() async {
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
                publisher.update(record(advertised, tls: publisher.name.hasSuffix("(TLS)")))
            }
        }
    }

    // MARK: Peers

    private func handle(_ event: PeerEvent) {
        switch event {
        case .appeared(let peer):
            guard let profile = peer.profile, let peerUUID = profile.uuid, peerUUID != uuid else { return }
            let isNew = state.withLock { s -> Bool in
                let known = s.seen.values.contains { $0.peer.profile?.uuid == peerUUID }
                s.seen[peer.instance] = Seen(peer: peer, since: s.seen[peer.instance]?.since ?? Date())
                return !known || s.syncing[peerUUID] == nil
            }
            logger.info("discovery: peer", metadata: ["instance": "\(peer.instance)", "url": "\(peer.baseURL)",
                                                      "databases": "\(profile.databases)"])
            if isNew || peer.profile?.databases != nil { sync(with: peer, uuid: peerUUID) }
        case .disappeared(let instance):
            let stopped = state.withLock { s -> [String] in
                guard let gone = s.seen.removeValue(forKey: instance), let peerUUID = gone.peer.profile?.uuid,
                      !s.seen.values.contains(where: { $0.peer.profile?.uuid == peerUUID }) else { return [] }
                return s.syncing.removeValue(forKey: peerUUID) ?? []
            }
            logger.info("discovery: peer left", metadata: ["instance": "\(instance)"])
            for id in stopped { _ = replications.cancel(id: id) }
        }
    }

    /// Starts (or restarts at once) the two-way replications of every `sync` database the peer advertises.
    private func sync(with peer: DiscoveredPeer, uuid peerUUID: String) {
        guard !configuration.sync.isEmpty, let profile = peer.profile else { return }
        if profile.usesTLS && !configuration.trusts(advertised: profile.tlsFingerprint) { return }
        let databases = configuration.sync.filter { profile.databases.contains($0) }
        guard !databases.isEmpty else { return }
        let base = peerURL(peer)
        var started: [String] = []
        for db in databases {
            let remote = base + "/" + URLText.percentEncoded(db)
            var pin: JSONValue = .null
            if profile.usesTLS, let fp = profile.tlsFingerprint { pin = .string(fp) }
            for (direction, source, target) in [("pull", remote, db), ("push", db, remote)] {
                let id = "discovery+\(peerUUID)+\(db)+\(direction)"
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
        state.withLock { $0.syncing[peerUUID] = started }
    }

    private func peerURL(_ peer: DiscoveredPeer) -> String {
        guard let (name, password) = configuration.peerCredentials else { return peer.baseURL }
        let userinfo = URLText.percentEncoded(name) + ":" + URLText.percentEncoded(password) + "@"
        return peer.baseURL.replacing("://", with: "://" + userinfo)
    }

    /// `GET /_peers`: every peer seen, what it advertises, whether it answers, and its replications.
    func peersJSON(checkReachability: Bool) async -> JSONValue {
        let (seen, syncing) = state.withLock { ($0.seen.values.sorted { $0.peer.instance < $1.peer.instance }, $0.syncing) }
        let jobs = Dictionary(replications.jobs.compactMap { job in job.status.id.map { ($0, job.status) } }) { a, _ in a }
        var rows: [JSONValue] = []
        for entry in seen {
            let peer = entry.peer
            let profile = peer.profile
            var row: JSONObject = [
                "instance": .string(peer.instance), "host": .string(peer.host), "port": .int(peer.port),
                "addresses": .array(peer.addresses.map { .string($0) }), "url": .string(peer.baseURL),
                "uuid": profile?.uuid.map { .string($0) } ?? .null,
                "databases": .array((profile?.databases ?? []).map { .string($0) }),
                "tls_fingerprint": profile?.tlsFingerprint.map { .string($0) } ?? .null,
                "seen_since": .string(entry.since.formatted(.iso8601)),
            ]
            if checkReachability { row.append("reachable", .bool(await Self.answers(peer.baseURL))) }
            let ids = profile?.uuid.flatMap { syncing[$0] } ?? []
            row.append("replications", .array(ids.map { id in
                ["id": .string(id), "state": jobs[id].map { .string($0.state.rawValue) } ?? .null]
            }))
            rows.append(.object(row))
        }
        return ["peers": .array(rows)]
    }

    /// Whether `GET base/` answers with CouchDB's welcome within a second.
    static func answers(_ base: String) async -> Bool {
        let session = CurlSession(maxConnections: 1, verifyTLS: false)
        let response = try? await session.send(RemoteRequest(method: "GET", url: base + "/", timeout: .seconds(1)))
        guard let response, response.status == 200 else { return false }
        return (try? JSONReader.parse(response.body))?["couchdb"] != nil
    }
}
