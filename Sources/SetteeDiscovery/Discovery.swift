public import Logging
internal import Synchronization

/// DNS-SD for Settee: publish services and browse for others over avahi's dns_sd
/// compatibility library. Knows nothing of databases: it reports peers.
///
///     let discovery = Discovery(logger: logger)
///     let published = discovery.publish(name: "settee on lab-3", port: 5984, record: profile.record)
///     let browser = discovery.browse { event in … }
///     discovery.stop()      // withdraws and stops browsing
public final class Discovery: Sendable {
    public static let defaultType = "_couchdb._tcp"
    private let loop = DNSSDLoop()
    private let logger: Logger
    /// Watches the daemon's host name while this side publishes (made with the first service).
    private let hostNameGuard = Mutex<HostNameGuard?>(nil)
    /// What was published, and the suffix `HostNameGuard` gave the host name, if it did.
    private let published = Mutex<(publishers: [ServicePublisher], suffix: String?)>(([], nil))
    private let browsers = Mutex<[ServiceBrowser]>([])

    public init(logger: Logger) {
        self.logger = logger
        loop.start()
    }

    /// Starts advertising `type` on `port` with `record`.
    public func publish(name: String, type: String = defaultType, port: Int, record: TXTRecord) -> ServicePublisher {
        hostNameGuard.withLock {
            $0 = $0 ?? HostNameGuard(logger: logger, onRename: { [weak self] in self?.hostRenamed(suffix: $0) },
                                     onSettled: { [weak self] in self?.hostSettled() })
        }
        let publisher = ServicePublisher(name: name, type: type, port: port, record: record, loop: loop, logger: logger)
        let suffix = published.withLock { p in
            p.publishers.append(publisher)
            return p.suffix
        }
        if let suffix { publisher.distinguish(by: suffix) }
        return publisher
    }

    /// The daemon's host name was given `suffix` (hosts of one name started together): the
    /// instance names take it too.
    private func hostRenamed(suffix: String) {
        let publishers = published.withLock { p in
            p.suffix = suffix
            return p.publishers
        }
        for publisher in publishers { publisher.distinguish(by: suffix) }
    }

    /// The daemon runs again after renaming its host: browse anew, and register again what was
    /// renamed with it (a device renamed by HostNameGuard and by nothing after stayed unheard by
    /// the others in 4 of ~20 shared-name rooms: its registration outlived the rename).
    private func hostSettled() {
        browsers.withLock { $0 }.forEach { $0.browseAgain() }
        let (publishers, suffix) = published.withLock { ($0.publishers, $0.suffix) }
        if suffix != nil { publishers.forEach { $0.registerAgain() } }
    }

    /// Starts browsing for `type`; `onEvent` runs on the discovery thread (keep it short).
    public func browse(type: String = defaultType, onEvent: @escaping @Sendable (PeerEvent) -> Void) -> ServiceBrowser {
        let browser = ServiceBrowser(type: type, loop: loop, logger: logger, onEvent: onEvent)
        browsers.withLock { $0.append(browser) }
        return browser
    }

    /// Withdraws every published service and ends browsing.
    public func stop() {
        loop.stop()
        hostNameGuard.withLock { current in
            current?.stop()
            current = nil
        }
        browsers.withLock { $0 = [] }
        published.withLock { $0 = ([], nil) }
    }
}
