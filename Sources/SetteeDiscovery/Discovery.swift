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

    public init(logger: Logger) {
        self.logger = logger
        loop.start()
    }

    /// Starts advertising `type` on `port` with `record`.
    public func publish(name: String, type: String = defaultType, port: Int, record: TXTRecord) -> ServicePublisher {
        ServicePublisher(name: name, type: type, port: port, record: record, loop: loop, logger: logger)
    }

    /// Starts browsing for `type`; `onEvent` runs on the discovery thread (keep it short).
    public func browse(type: String = defaultType, onEvent: @escaping @Sendable (PeerEvent) -> Void) -> ServiceBrowser {
        ServiceBrowser(type: type, loop: loop, logger: logger, onEvent: onEvent)
    }

    /// Withdraws every published service and ends browsing.
    public func stop() { loop.stop() }
}
