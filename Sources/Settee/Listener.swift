internal import Synchronization
internal import SetteeHTTP
internal import SetteeServer

/// The CouchDB HTTP API of a ``DataDirectory``, served from inside the program: the
/// router and HTTP server `settee serve` runs, over the same open databases (a write
/// over HTTP wakes this program's change feeds and live queries, and the reverse).
///
///     let listener = try await data.startListener(port: 5984)
///     print("sync with http://127.0.0.1:\(listener.port)/notes")
///
/// Peers are whoever they authenticate as (``DataDirectory/Options/admins``, `_users`),
/// never admins by default; new databases admit admins only (CouchDB 3's default
/// `_security`), as with `settee serve`.
public final class Listener: Sendable {
    /// The bound TCP port (the one asked for, or the one the system chose for 0).
    public let port: Int
    /// The address it listens on.
    public let address: String
    /// Whether it is published on DNS-SD (``DataDirectory/Options/serviceName``).
    public let isPublished: Bool
    let server: HTTPServer
    let node: SetteeNode

    init(server: HTTPServer, node: SetteeNode, port: Int, address: String, isPublished: Bool) {
        self.server = server
        self.node = node
        self.port = port
        self.address = address
        self.isPublished = isPublished
    }

    /// Stops accepting, lets requests in flight finish, withdraws the DNS-SD record.
    public func stop() async {
        if isPublished { node.stopDiscovery() }
        await server.shutdown()
    }
}

extension DataDirectory {
    /// Starts serving the CouchDB API on `address`:`port` (0: a free port), and
    /// publishes it on DNS-SD when the directory was opened with a ``Options/serviceName``.
    /// - Throws: ``SetteeError/listener(_:)`` when the address cannot be bound.
    public func startListener(port: Int = 0, address: String = "127.0.0.1") async throws(SetteeError) -> Listener {
        try checkOpen()
        var http = ServerConfiguration()
        http.bindAddresses = [address]
        http.port = port
        let server = node.makeListener(http, logger: logger)
        let ports: [Int]
        do { ports = try server.start() } catch { throw .listener(String(describing: error)) }
        guard let bound = ports.first else {
            await server.shutdown()
            throw .listener("no port bound on \(address)")
        }
        let published = node.startDiscovery(ports: [bound])
        let listener = Listener(server: server, node: node, port: bound, address: address, isPublished: published)
        listeners.withLock { $0.append(listener) }
        return listener
    }
}
