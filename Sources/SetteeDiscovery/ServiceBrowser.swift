internal import Dispatch
internal import CDNSSD
internal import FoundationEssentials
public import Logging
internal import Synchronization

/// Finds the services of one type: browses, resolves each new instance (host, port,
/// TXT record), asks for its host's IPv4 and IPv6 addresses (A and AAAA records with
/// `DNSServiceQueryRecord`: avahi's library has no `DNSServiceGetAddrInfo`), and reports arrivals, record changes and
/// departures. Resolution stays open while the instance is there, so a changed TXT
/// record is reported too. Restarts browsing with back-off if the daemon goes away.
///
/// avahi's compat library gives every DNSServiceRef its own D-Bus connection (and thread),
/// and the system bus allows a user 256 connections: 200 services advertised at once,
/// each held open, made every resolve fail with `Refused` (dns_sd -65553), the good peers'
/// too. So at most `maxOpen` resolutions are open at a time (three refs each: the resolve,
/// the A and the AAAA query); the others wait their turn,
/// and while some wait, an instance is let go (its refs closed) once it has been reported:
/// it stays known, its departure is still seen, and it is resolved again in turn every
/// `refreshAfter` seconds (from avahi's cache) so that a changed TXT record is seen late, not never.
/// A resolution the daemon refuses, or one not answered within `answerWithin` (an instance
/// gone before it was asked, a request the daemon dropped), gives its slot back and is
/// tried again later: dropping it once made a good peer in a flood never seen at all.
public final class ServiceBrowser: @unchecked Sendable {
    // @unchecked: everything mutable is touched only on the loop thread.
    public let type: String
    private let loop: DNSSDLoop
    private let logger: Logger
    private let onEvent: @Sendable (PeerEvent) -> Void
    private var resolving: [String: Resolution] = [:]
    /// Instances waiting for a resolution slot: key, name, domain, interface.
    private var waiting: [(key: String, instance: String, domain: String, interface: UInt32)] = []
    static let maxOpen = 32
    static let refreshAfter = 15.0
    static let answerWithin = 10.0
    /// How long a removal waits for the instance's return before it is a departure (`VanishGrace`).
    static let vanishGrace = 3.0
    private let vanishes: VanishGrace
    /// Instances whose refused resolution was logged (once each).
    private var toldRefused: Set<String> = []
    private var isStopped = false
    private var failures = 0

    /// One instance being resolved, and what is known of it so far.
    final class Resolution {
        let instance: String
        let interfaceIndex: UInt32
        let key: String
        let domain: String
        weak var browser: ServiceBrowser?
        var host = ""
        var port = 0
        var record = TXTRecord()
        var addresses: [String] = []
        /// The A and the AAAA query's tokens.
        let addressTokens = [AddressQuery(), AddressQuery()]
        var reported: DiscoveredPeer?
        /// Its refs are open (not yet let go, or ended).
        var isOpen = true
        /// Which opening of its refs this is, and whether that one has reported an address.
        var opening = 0
        var answered = false { didSet { if answered { misses = 0 } } }
        var misses = 0  // openings in a row that gave no address: the next waits longer (`ResolveRetry`)
        /// Address queries (0: A, 1: AAAA) the daemon refused or dropped: asked again.
        var unasked: Set<Int> = []

        /// Whether an address of the family of query `index` (0: IPv4, 1: IPv6) has come.
        func hasAddress(_ index: Int) -> Bool { addresses.contains { $0.contains(":") == (index == 1) } }

        init(instance: String, interfaceIndex: UInt32, key: String, domain: String, browser: ServiceBrowser) {
            self.instance = instance
            self.interfaceIndex = interfaceIndex
            self.key = key
            self.domain = domain
            self.browser = browser
        }
    }

    init(type: String, loop: DNSSDLoop, logger: Logger, vanishGrace: Double = vanishGrace,
         onEvent: @escaping @Sendable (PeerEvent) -> Void) {
        self.vanishes = VanishGrace(grace: vanishGrace)
        self.type = type
        self.loop = loop
        self.logger = logger
        self.onEvent = onEvent
        loop.perform { [self] in browse() }
    }

    public func stop() {
        loop.perform { [self] in
            isStopped = true
            loop.remove(self)
            waiting = []
            for resolution in resolving.values { end(resolution) }
            resolving = [:]
        }
    }

    /// Browses anew (the daemon asks the network again): after it renamed its host, a service
    /// announced meanwhile may never have been reported (HostNameGuard). Known instances stay.
    func browseAgain() {
        loop.perform { [self] in
            guard !isStopped else { return }
            loop.remove(self)
            browse()
        }
    }

    private func browse() {
        guard !isStopped else { return }
        var ref: DNSServiceRef?
        let status = DNSServiceBrowse(&ref, 0, 0, type, nil, { _, flags, interface, error, name, _, domain, context in
            guard error == kDNSServiceErr_NoError, let name, let context else { return }
            let browser = Unmanaged<ServiceBrowser>.fromOpaque(context).takeUnretainedValue()
            browser.browsed(String(cString: name), domain: domain.map { String(cString: $0) } ?? "local.",
                            interface: interface, added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0)
        }, Unmanaged.passUnretained(self).toOpaque())
        guard status == kDNSServiceErr_NoError, let ref else {
            retry(status)
            return
        }
        loop.add(self, ref) { [self] status in retry(status) }
    }

    private func retry(_ status: DNSServiceErrorType) {
        guard !isStopped else { return }
        if failures == 0 { logger.warning("mDNS: cannot browse \(type) (dns_sd error \(status)); retrying") }
        failures += 1
        // The daemon is gone: what it told us is stale.
        waiting = []
        for resolution in resolving.values { end(resolution) }
        resolving = [:]
        let delay = min(30.0, Double(1 << min(failures - 1, 5)))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in loop.perform { [self] in browse() } }
    }

    /// What the browse reported (internal for tests: they call it on a loop of their own).
    func browsed(_ instance: String, domain: String, interface: UInt32, added: Bool) {
        failures = 0
        let key = "\(instance)\u{0}\(interface)"
        guard added else {
            waiting.removeAll { $0.key == key }
            if let resolution = resolving.removeValue(forKey: key) { end(resolution) }
            // Gone from every interface: the peer has left, unless back within the grace (`VanishGrace`).
            let isKnown: @Sendable () -> Bool = { [self] in resolving.values.contains { $0.instance == instance } || waiting.contains { $0.instance == instance } }
            guard !isKnown() else { return }
            vanishes.vanished(instance, on: loop, isBack: isKnown) { [self] in if !isStopped { onEvent(.disappeared(instance: instance)) } }
            return
        }
        vanishes.returned(instance)
        guard resolving[key] == nil, !waiting.contains(where: { $0.key == key }) else { return }
        guard resolving.values.count(where: \.isOpen) < Self.maxOpen else {
            waiting.append((key, instance, domain, interface))
            return
        }
        resolve(key, instance, domain: domain, interface: interface)
    }

    private func resolve(_ key: String, _ instance: String, domain: String, interface: UInt32) {
        // A let-go instance is resolved again in place: its host (and addresses) are known.
        let resolution = resolving[key] ?? Resolution(instance: instance, interfaceIndex: interface, key: key, domain: domain,
                                                            browser: self)
        var ref: DNSServiceRef?
        let status = DNSServiceResolve(&ref, 0, interface, instance, type, domain, { _, _, _, error, _, host, port, length, txt, context in
            guard error == kDNSServiceErr_NoError, let context else { return }
            let resolution = Unmanaged<Resolution>.fromOpaque(context).takeUnretainedValue()
            let record = TXTRecord(bytes: txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(length))) } ?? [])
            resolution.browser?.resolved(resolution, host: host.map { String(cString: $0) } ?? "",
                                         port: Int(UInt16(bigEndian: port)), record: record)
        }, Unmanaged.passUnretained(resolution).toOpaque())
        resolving[key] = resolution
        guard status == kDNSServiceErr_NoError, let ref else {
            if toldRefused.insert(instance).inserted {
                logger.notice("mDNS: cannot resolve \(instance): \(DNSSDStatus(code: status)); trying again")
            }
            resolution.isOpen = false
            return letGo(resolution, key: key, domain: domain, after: ResolveRetry.first)
        }
        resolution.isOpen = true
        resolution.opening += 1
        resolution.answered = false
        loop.add(resolution, ref) { [self] _ in end(resolution) }
        checkAnswered(key, domain: domain, opening: resolution.opening)
    }

    /// After `answerWithin`: a resolution with no address yet gives its slot back (and is
    /// tried again); one with an address query the daemon refused asks it again (a host
    /// known only by its IPv6 link-local address, while it listens on IPv4 alone, was never synced with).
    private func checkAnswered(_ key: String, domain: String, opening: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.answerWithin) { [self] in loop.perform { [self] in
            guard !isStopped, let current = resolving[key], current.isOpen, current.opening == opening else { return }
            guard current.answered else {
                current.misses += 1
                return letGo(current, key: key, domain: domain, after: ResolveRetry.delay(afterMisses: current.misses))
            }
            if !current.unasked.isEmpty {
                for index in current.unasked { query(current, host: current.host, index: index) }
                checkAnswered(key, domain: domain, opening: opening)
            } else if !waiting.isEmpty {
                letGo(current, key: key, domain: domain)  // one family never answered (an IPv6-only link)
            }
        } }
    }

    /// A let-go instance is resolved again after `refreshAfter`, in turn, for a changed TXT record.
    private func letGo(_ resolution: Resolution, key: String, domain: String, after delay: Double = refreshAfter) {
        end(resolution)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in loop.perform { [self] in
            guard !isStopped, let parked = resolving[key], !parked.isOpen,
                  !waiting.contains(where: { $0.key == key }) else { return }
            waiting.append((key, parked.instance, domain, parked.interfaceIndex))
            resolveWaiting()
        } }
    }

    /// Starts waiting resolutions while slots are free.
    private func resolveWaiting() {
        while !isStopped, !waiting.isEmpty, resolving.values.count(where: \.isOpen) < Self.maxOpen {
            let next = waiting.removeFirst()
            resolve(next.key, next.instance, domain: next.domain, interface: next.interface)
        }
    }

    private func resolved(_ resolution: Resolution, host: String, port: Int, record: TXTRecord) {
        let hostChanged = host != resolution.host
        (resolution.host, resolution.port, resolution.record) = (host, port, record)
        if hostChanged {
            for token in resolution.addressTokens { loop.remove(token) }
            resolution.addresses = []
            query(resolution, host: host, index: 0)
            query(resolution, host: host, index: 1)
        } else {
            // A family with no address yet is asked again (its query refused, or let go before
            // its answer: in a flood, a peer known only by its AAAA record was never synced with).
            for index in [0, 1] where !resolution.hasAddress(index) { query(resolution, host: host, index: index) }
        }
        report(resolution)
    }

    /// Asks for the host's A or AAAA records on the interface it was browsed on (a link with
    /// only IPv6 link-local addresses answers AAAA alone; its addresses need that interface as zone).
    private func query(_ resolution: Resolution, host: String, index: Int) {
        let type = index == 0 ? kDNSServiceType_A : kDNSServiceType_AAAA, token = resolution.addressTokens[index]
        loop.remove(token)
        var ref: DNSServiceRef?
        let status = DNSServiceQueryRecord(&ref, 0, resolution.interfaceIndex, host, UInt16(type), UInt16(kDNSServiceClass_IN),
                                           { _, flags, interface, error, _, rrtype, _, length, data, _, context in
            guard error == kDNSServiceErr_NoError, let data, let context,
                  flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 else { return }
            let resolution = Unmanaged<Resolution>.fromOpaque(context).takeUnretainedValue()
            let bytes = Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
            let address = rrtype == UInt16(kDNSServiceType_AAAA)
                ? PeerAddress.ipv6(bytes, interfaceIndex: interface != 0 ? interface : resolution.interfaceIndex)
                : PeerAddress.ipv4(bytes)
            if let address { resolution.browser?.addressed(resolution, address) }
        }, Unmanaged.passUnretained(resolution).toOpaque())
        guard status == kDNSServiceErr_NoError, let ref else {
            logger.debug("mDNS: cannot ask \(host)'s \(index == 0 ? "A" : "AAAA") records: \(DNSSDStatus(code: status)); asking again")
            resolution.unasked.insert(index)
            return
        }
        resolution.unasked.remove(index)
        loop.add(token, ref) { [self] _ in
            loop.remove(token)
            resolution.unasked.insert(index)
        }
    }

    private func addressed(_ resolution: Resolution, _ address: String) {
        guard !resolution.addresses.contains(address) else { return }
        resolution.addresses = PeerAddress.preferred(resolution.addresses + [address])
        report(resolution)
    }

    /// Reports the peer once it has an address, and again whenever what is known changes.
    private func report(_ resolution: Resolution) {
        guard !resolution.addresses.isEmpty else { return }
        resolution.answered = true
        let peer = DiscoveredPeer(instance: resolution.instance, host: resolution.host, port: resolution.port,
                                  addresses: resolution.addresses, interfaceIndex: resolution.interfaceIndex,
                                  record: resolution.record)
        if peer != resolution.reported {
            resolution.reported = peer
            onEvent(.appeared(peer))
        }
        // Others wait for a slot: let go once both families answered (else at `checkAnswered`).
        if !waiting.isEmpty && resolution.hasAddress(0) && resolution.hasAddress(1) { letGo(resolution, key: resolution.key, domain: resolution.domain) }
    }

    /// Closes the resolution's refs (it stays in `resolving` unless the caller removes it).
    private func end(_ resolution: Resolution) {
        guard resolution.isOpen else { return }
        resolution.isOpen = false
        loop.remove(resolution)
        for token in resolution.addressTokens { loop.remove(token) }
        // Not from `stop`/`retry` (they empty `waiting` first): the freed slot goes to the next.
        loop.perform { [self] in resolveWaiting() }
    }
}
