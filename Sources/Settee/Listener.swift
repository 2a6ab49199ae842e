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
/// With ``TLS`` it speaks HTTPS only, with the certificate `settee serve` would use
/// (`[ssl]`), and tells its ``tlsFingerprint`` so that peers can pin it:
///
///     let listener = try await data.startListener(port: 6984, tls: .selfSigned)
///     print("pin \(listener.tlsFingerprint!)")
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
    /// The SHA-256 fingerprint of its certificate, `AB:CD:…` as `openssl x509
    /// -fingerprint -sha256` and `settee serve` print it; nil for plain HTTP. A peer
    /// pins it with ``Replicator/Peer/url(_:pin:)``; DNS-SD advertises it (TXT `fp`).
    public let tlsFingerprint: String?
    let server: HTTPServer
    let node: SetteeNode

    init(server: HTTPServer, node: SetteeNode, port: Int, address: String, isPublished: Bool, tlsFingerprint: String?) {
        self.server = server
        self.node = node
        self.port = port
        self.address = address
        self.isPublished = isPublished
        self.tlsFingerprint = tlsFingerprint
    }

    /// Whether it speaks HTTPS.
    public var usesTLS: Bool { tlsFingerprint != nil }

    /// The record layer its HTTPS sessions use (``RecordLayer``); nil for plain HTTP.
    public var recordLayer: RecordLayer? {
        server.configuration.tls.map { $0.recordLayer == .openssl ? .openssl : .settee }
    }

    /// Its base URL, `http://ADDRESS:PORT/` or `https://…` (an IPv6 address in brackets,
    /// RFC 3986 §3.2.2). A wildcard address (`0.0.0.0`, `::`) is given as it is: peers
    /// reach the listener at one of the host's own addresses.
    public var url: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "\(usesTLS ? "https" : "http")://\(host):\(port)/"
    }

    /// Stops accepting, lets requests in flight finish, withdraws the DNS-SD record.
    public func stop() async {
        if isPublished { node.withdrawDiscovery(ports: [port]) }
        await server.shutdown()
    }
}

extension DataDirectory {
    /// Starts serving the CouchDB API on `address`:`port` (0: a free port), and
    /// publishes it on DNS-SD when the directory was opened with a ``Options/serviceName``.
    ///
    /// With `tls`, the listener speaks HTTPS only, and is published with the TLS profile
    /// `settee serve` gives its `[ssl]` port (TXT `tls=1` and `fp`, the fingerprint);
    /// `recordLayer` is `[ssl] record_layer` (ignored without `tls`):
    ///
    ///     let listener = try await data.startListener(tls: .selfSigned, recordLayer: .openssl)
    /// - Throws: ``SetteeError/listener(_:)`` when the address cannot be bound, or the
    ///   certificate or key cannot be read (or made).
    public func startListener(port: Int = 0, address: String = "127.0.0.1",
                              tls: Listener.TLS? = nil,
                              recordLayer: Listener.RecordLayer = .settee) async throws(SetteeError) -> Listener {
        try checkOpen()
        var http = ServerConfiguration()
        http.bindAddresses = [address]
        http.port = port
        if let tls {
            http.tls = try await tls.listener(port: port, dataDirectory: path, address: address, recordLayer: recordLayer)
            http.servesPlainHTTP = false
        }
        let server = node.makeListener(http, logger: logger)
        let ports: [Int]
        do { ports = try server.start() } catch { throw .listener(String(describing: error)) }
        guard let bound = (tls == nil ? ports : server.tlsPorts).first else {
            await server.shutdown()
            throw .listener("no port bound on \(address)")
        }
        let fingerprint = http.tls?.context.fingerprint
        let published = tls == nil ? node.startDiscovery(ports: [bound])
            : node.startDiscovery(ports: [], tlsPorts: [bound], tlsFingerprint: fingerprint)
        let listener = Listener(server: server, node: node, port: bound, address: address, isPublished: published,
                                tlsFingerprint: fingerprint)
        listeners.withLock { $0.append(listener) }
        return listener
    }
}
