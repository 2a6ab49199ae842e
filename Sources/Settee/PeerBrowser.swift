internal import Logging
internal import Synchronization
internal import SetteeDiscovery

/// Another Settee (or CouchDB-compatible service) found on the local network over DNS-SD:
/// where it is and what its `_couchdb._tcp` TXT record advertises.
public struct NearbyPeer: Sendable, Hashable {
    /// Its DNS-SD instance name (unique on the link), e.g. "Settee on lab-3".
    public let name: String
    /// `http(s)://ADDRESS:PORT`, from its first address (IPv4 first; an IPv6 one in
    /// brackets with its zone, RFC 6874).
    public let url: String
    /// Its server uuid (`GET /`'s), the same on every address it is seen on; nil when its
    /// record has none (not a Settee).
    public let uuid: String?
    /// The databases it advertises (`path` entries).
    public let databases: [String]
    /// Whether the port speaks TLS, and the SHA-256 fingerprint of the certificate it
    /// advertises (to pin only if you trust the network: ``Replicator/Peer/url(_:pin:)``).
    public let usesTLS: Bool
    public let tlsFingerprint: String?
    /// The host name it resolved to (`host.local.`) and its port.
    public let host: String
    public let port: Int

    init(_ peer: DiscoveredPeer) {
        let profile = peer.profile
        name = peer.instance
        url = peer.baseURL
        uuid = profile?.uuid
        databases = profile?.databases ?? []
        usesTLS = profile?.usesTLS ?? false
        tlsFingerprint = profile?.tlsFingerprint
        host = peer.host
        port = peer.port
    }

    /// The URL of its database `name`, to replicate with (a `/` in the name percent-encoded).
    public func url(ofDatabase name: String) -> String {
        url + "/" + name.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
    }
}

/// The peers on the local network, as an `AsyncSequence` of arrivals and departures,
/// browsed over DNS-SD (avahi's dns_sd library, as `settee serve` browses) for as long as
/// it is iterated:
///
///     for await event in data.browsePeers() {
///         switch event {
///         case .appeared(let peer): print("found", peer.name, peer.url, peer.databases)
///         case .left(let name): print(name, "left")
///         }
///     }
///
/// A peer appears again when its record changes (another port, other databases). This
/// directory's own listener is not reported. Without a DNS-SD daemon (no avahi-daemon or
/// no D-Bus) nothing is reported, and browsing is retried with back-off. Cancelling the
/// iterating task ends the sequence and stops browsing; so does dropping the iterator.
public struct PeerBrowser: AsyncSequence, Sendable {
    public enum Event: Sendable, Hashable {
        /// A peer was found, or its record changed.
        case appeared(NearbyPeer)
        /// The peer of this instance name withdrew its service or went silent.
        case left(name: String)
    }

    public typealias Element = Event
    public typealias Failure = Never

    /// The DNS-SD service type browsed.
    public let serviceType: String
    let ownUUID: String?
    let logger: Logger

    public func makeAsyncIterator() -> Iterator {
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let session = BrowseSession(type: serviceType, ownUUID: ownUUID, logger: logger, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        return Iterator(events: events.makeAsyncIterator(), session: session)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var events: AsyncStream<Event>.Iterator
        let session: BrowseSession

        public mutating func next() async -> Event? { await events.next() }
    }
}

/// One iteration's browsing: its own DNS-SD loop and browser, stopped when the iteration ends.
final class BrowseSession: Sendable {
    private let discovery: Discovery
    private let browser = Mutex<ServiceBrowser?>(nil)

    init(type: String, ownUUID: String?, logger: Logger, continuation: AsyncStream<PeerBrowser.Event>.Continuation) {
        discovery = Discovery(logger: logger)
        let filter = PeerEventFilter(ownUUID: ownUUID)
        let started = discovery.browse(type: type) { event in
            guard let mapped = filter.event(event) else { return }
            continuation.yield(mapped)
        }
        browser.withLock { $0 = started }
    }

    /// Stops browsing and the DNS-SD loop's thread; later calls do nothing.
    func stop() {
        let running = browser.withLock { current -> ServiceBrowser? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        running.stop()
        discovery.stop()
    }

    deinit { stop() }
}

/// Maps the discovery module's events onto the library's: this directory's own service
/// is left out, and so is the departure of an instance never reported.
final class PeerEventFilter: Sendable {
    let ownUUID: String?
    /// Instance names reported as appeared (so that only they are reported leaving).
    private let reported = Mutex<Set<String>>([])

    init(ownUUID: String?) { self.ownUUID = ownUUID }

    func event(_ event: PeerEvent) -> PeerBrowser.Event? {
        switch event {
        case .appeared(let found):
            let peer = NearbyPeer(found)
            if let ownUUID, peer.uuid == ownUUID { return nil }
            reported.withLock { _ = $0.insert(peer.name) }
            return .appeared(peer)
        case .disappeared(let instance):
            guard reported.withLock({ $0.remove(instance) }) != nil else { return nil }
            return .left(name: instance)
        }
    }
}

extension DataDirectory {
    /// The Settee peers (and other `_couchdb._tcp` services) on the local network, for as
    /// long as the sequence is iterated. This directory's own listener is left out.
    public func browsePeers(serviceType: String = "_couchdb._tcp") -> PeerBrowser {
        PeerBrowser(serviceType: serviceType, ownUUID: uuid, logger: logger)
    }
}
