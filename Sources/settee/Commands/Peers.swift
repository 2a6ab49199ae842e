/*
 `settee peers`: who is on the local network. Browses DNS-SD for `_couchdb._tcp`
 (Settees, and anything else that advertises CouchDB) for a few seconds and lists
 what answered, or with `--watch` prints arrivals (`+`) and departures (`-`) as
 they happen until interrupted. With `--server URL` it asks that running server instead
 (ServerPeers): its peers with their state, last sighting and replications both ways.
*/
internal import SetteeReplicator
internal import ArgumentParser
internal import FoundationEssentials
internal import Logging
internal import SetteeDiscovery
internal import SetteeJSON
internal import Synchronization

struct Peers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List CouchDB peers on the local network (DNS-SD), or watch them come and go.")

    @Flag(help: "Print arrivals (+) and departures (-) as they happen, until interrupted.")
    var watch = false

    @Flag(help: "Print JSON: an array of peers, or with --watch one event object per line.")
    var json = false

    @Option(help: "Seconds to browse before listing (without --watch).")
    var seconds: Double = 3

    @Option(help: "The DNS-SD service type.")
    var type: String = Discovery.defaultType

    @Option(help: "Ask this running server (http://NAME:PASSWORD@HOST:PORT) for the peers it syncs with (GET /_peers).")
    var server: String?

    func run() async throws {
        if let server {
            return try await ServerPeers(client: try AdminClient(server: server, command: "peers"), json: json).run(watch: watch)
        }
        var logger = Logger(label: "settee")
        logger.logLevel = .warning
        let discovery = Discovery(logger: logger)
        let found = Mutex<[String: DiscoveredPeer]>([:])
        let watching = watch, asJSON = json
        let browser = discovery.browse(type: type) { event in
            switch event {
            case .appeared(let peer):
                found.withLock { $0[peer.instance] = peer }
                if watching { Self.print(asJSON ? Self.eventJSON("appeared", peer) : "+ " + Self.line(peer)) }
            case .disappeared(let instance):
                found.withLock { $0[instance] = nil }
                if watching {
                    Self.print(asJSON ? String(decoding: JSONWriter.serialize(["event": "disappeared", "instance": .string(instance)]),
                                               as: UTF8.self) : "- \(instance)")
                }
            }
        }
        if watch {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                TerminationSignals.install { _ in done.resume() }
            }
        } else {
            try await Task.sleep(for: .milliseconds(Int(max(0.1, seconds) * 1000)))
        }
        browser.stop()
        discovery.stop()
        guard !watch else { return }
        let peers = found.withLock { Array($0.values) }.sorted { $0.instance < $1.instance }
        if json {
            Self.print(String(decoding: JSONWriter.serialize(.array(peers.map { .object(Self.object($0)) })), as: UTF8.self))
        } else if peers.isEmpty {
            Self.print("no peers found in \(seconds) s")
        } else {
            for peer in peers { Self.print(Self.line(peer)) }
        }
    }

    /// `instance  http://addr:port  db1,db2  uuid  fp`.
    static func line(_ peer: DiscoveredPeer) -> String {
        let profile = peer.profile
        return [peer.instance, peer.baseURL, (profile?.databases ?? []).joined(separator: ","),
                profile?.uuid ?? "-", profile?.tlsFingerprint.map { "fp " + $0 } ?? ""]
            .joined(separator: "  ").trimmingBlanks()
    }

    static func object(_ peer: DiscoveredPeer) -> JSONObject {
        let profile = peer.profile
        return ["instance": .string(peer.instance), "host": .string(peer.host), "port": .int(peer.port),
                "addresses": .array(peer.addresses.map { .string($0) }), "url": .string(peer.baseURL),
                "databases": .array((profile?.databases ?? []).map { .string($0) }),
                "uuid": profile?.uuid.map { .string($0) } ?? .null,
                "tls_fingerprint": profile?.tlsFingerprint.map { .string($0) } ?? .null]
    }

    static func eventJSON(_ event: String, _ peer: DiscoveredPeer) -> String {
        var object: JSONObject = ["event": .string(event)]
        for member in Self.object(peer) { object.append(member.key, member.value) }
        return String(decoding: JSONWriter.serialize(.object(object)), as: UTF8.self)
    }

    static func print(_ line: String) { StandardStreams.output((line + "\n")) }
}
