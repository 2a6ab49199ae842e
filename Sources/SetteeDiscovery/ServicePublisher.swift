internal import Dispatch
internal import CDNSSD
internal import FoundationEssentials
public import Logging
internal import Synchronization

/// Advertises one service (`_couchdb._tcp` on a port) with its TXT record, keeps it
/// advertised across daemon restarts (re-registering with capped back-off), updates
/// the record in place, and withdraws it on `withdraw()`. With no mDNS daemon it
/// logs one warning and keeps trying quietly: the server serves on regardless. A name
/// another host holds is renamed by avahi itself (`Name #2`); one this daemon already
/// publishes (two Settees on one host, or containers sharing the host's D-Bus) comes back
/// as a conflict (dns_sd -65548), and is renamed as Bonjour renames (`Name (2)`, `Name (3)`).
public final class ServicePublisher: @unchecked Sendable {
    // @unchecked: the mutable state below is touched only on the loop thread.
    public let type: String
    public let port: Int
    /// The name registered next: the configured one, or its rename after a conflict.
    private var requestedName: String
    /// The name it was asked to publish under (`name` is what the network let it have).
    public let configuredName: String
    private let loop: DNSSDLoop
    private let logger: Logger
    /// The TXT record, and when a change of it is sent (`RecordUpdates`: not while the daemon probes).
    private var records: RecordUpdates
    private var registered: DNSServiceRef?
    private var isWithdrawn = false
    private var failures = 0
    private let warned = Atomic<Bool>(false)
    /// Whether the daemon confirmed the current registration; which registration that is.
    private var confirmed = false
    private var generation = 0
    private var toldUnconfirmed = false
    /// How long a registration may wait for the daemon's confirmation before it is made again.
    static let confirmWithin = 8.0
    /// The name the daemon settled on (another host may hold the one asked for).
    public var name: String { nameLock.withLock { $0 } }
    private let nameLock: Mutex<String>

    init(name: String, type: String, port: Int, record: TXTRecord, loop: DNSSDLoop, logger: Logger) {
        requestedName = name
        configuredName = name
        nameLock = Mutex(name)
        self.type = type
        self.port = port
        records = RecordUpdates(record)
        self.loop = loop
        self.logger = logger
        loop.perform { [self] in register() }
    }

    /// Replaces the advertised TXT record (held while the daemon still probes the name: `RecordUpdates`).
    public func update(_ newRecord: TXTRecord) {
        loop.perform { [self] in
            if let due = records.change(to: newRecord) { send(due) }
        }
    }

    private func send(_ record: TXTRecord) {
        guard let registered else { return }
        let bytes = record.bytes
        let status = bytes.withUnsafeBytes {
            DNSServiceUpdateRecord(registered, nil, 0, UInt16($0.count), $0.baseAddress, 0)
        }
        if status != kDNSServiceErr_NoError { logger.notice("mDNS: TXT update failed (\(status)); re-registering") ; reregister() }
    }

    /// Registers again: the service was seen to vanish while this side thought it published
    /// (avahi's compat library resets its entry group when the host name collides and never
    /// fills it again).
    public func refresh() {
        loop.perform { [self] in
            guard !isWithdrawn, confirmed else { return }
            logger.info("mDNS: \"\(requestedName)\" vanished from the network; registering it again")
            reregister()
        }
    }

    /// The host shares its name with hosts that started with it (`HostNameGuard` gave the
    /// daemon's host name `suffix`): so does this instance name, and the same services probing
    /// in step would be renamed in step (`#2`, `#3`, ...) for as long as the host names were,
    /// one published a round at best. It takes the host's suffix instead ("Settee on pi (3f9a0c)",
    /// before a " (TLS)"), logged once.
    func distinguish(by suffix: String) {
        loop.perform { [self] in
            let tls = configuredName.hasSuffix(" (TLS)")
            let name = (tls ? String(configuredName.dropLast(6)) : configuredName) + " (\(suffix))" + (tls ? " (TLS)" : "")
            guard !isWithdrawn, requestedName != name else { return }
            logger.info("mDNS: this host's name is shared by hosts that started with it; publishing \"\(requestedName)\" as \"\(name)\"")
            requestedName = name
            nameLock.withLock { $0 = name }
            reregister()
        }
    }

    /// Registers again under the current name (the daemon renamed its host meanwhile).
    func registerAgain() {
        loop.perform { [self] in
            guard !isWithdrawn else { return }
            reregister()
        }
    }

    /// Stops advertising (a goodbye packet goes out).
    public func withdraw() {
        loop.perform { [self] in
            isWithdrawn = true
            loop.remove(self)
            registered = nil
        }
    }

    private func register() {
        guard !isWithdrawn else { return }
        var ref: DNSServiceRef?
        let context = Unmanaged.passUnretained(self).toOpaque()
        records.registering()
        let bytes = records.current.bytes
        let status = bytes.withUnsafeBytes { txt in
            DNSServiceRegister(&ref, 0, 0, requestedName, type, nil, nil, UInt16(port).bigEndian,
                               UInt16(txt.count), txt.baseAddress, { _, _, error, name, _, _, context in
                let publisher = Unmanaged<ServicePublisher>.fromOpaque(context!).takeUnretainedValue()
                publisher.registered(error: error, name: name.map { String(cString: $0) })
            }, context)
        }
        guard status == kDNSServiceErr_NoError, let ref else {
            failed(status)
            return
        }
        registered = ref
        loop.add(self, ref) { [self] status in
            registered = nil
            failed(status)
        }
        confirmed = false
        generation += 1
        let current = generation
        // Not confirmed in time (the compat library waits on a daemon state it missed): again.
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.confirmWithin) { [self] in loop.perform { [self] in
            guard current == generation, !confirmed, !isWithdrawn, registered != nil else { return }
            if !toldUnconfirmed {
                toldUnconfirmed = true
                logger.info("mDNS: the daemon has not confirmed \"\(requestedName)\" in \(Int(Self.confirmWithin)) s; registering again")
            }
            reregister()
        } }
    }

    private func registered(error: DNSServiceErrorType, name: String?) {
        guard error == kDNSServiceErr_NoError else {
            // Only a conflict is acted on here (the name is taken: rename). Other errors the
            // callback reports are passing states of avahi's entry group, which it recovers
            // from by itself; tearing the registration down for them made peers flap.
            guard DNSSDStatus(code: error).isNameConflict else { return }
            loop.remove(self)
            registered = nil
            return failed(error)
        }
        failures = 0
        confirmed = true
        if let due = records.confirmed() { send(due) }
        // avahi renames by itself ("Name #2") when another host holds the name; say so once.
        if let name, name != requestedName {
            logger.info("mDNS: \"\(requestedName)\" is taken on the network; publishing as \"\(name)\"")
            requestedName = name
        }
        if let name { nameLock.withLock { $0 = name } }
        logger.info("mDNS: published", metadata: ["name": "\(name ?? requestedName)", "type": "\(type)", "port": "\(port)"])
    }

    private func reregister() {
        loop.remove(self)
        registered = nil
        register()
    }

    /// A name conflict: the next name at once. Anything else (no daemon, or it went away):
    /// one warning saying what the daemon answered, then retries every 1, 2, 4 … 30 s.
    private func failed(_ code: DNSServiceErrorType) {
        guard !isWithdrawn else { return }
        let status = DNSSDStatus(code: code)
        if status.isNameConflict {
            let taken = requestedName
            requestedName = DNSSDStatus.alternative(to: taken)
            nameLock.withLock { $0 = requestedName }
            logger.info("mDNS: \"\(taken)\" is taken on the network; publishing as \"\(requestedName)\"")
            return register()
        }
        if !warned.exchange(true, ordering: .relaxed) {
            logger.warning("mDNS: cannot publish \(type) on port \(port): \(status); serving without discovery and retrying")
        }
        failures += 1
        let delay = min(30.0, Double(1 << min(failures - 1, 5)))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in loop.perform { [self] in
            if registered == nil { register() }
        } }
    }
}
