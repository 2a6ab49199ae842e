/// How the HTTP server listens and what it accepts. Defaults follow CouchDB's
/// `[chttpd]` and `[httpd]` defaults where CouchDB has one.
public struct ServerConfiguration: Sendable {
    /// Addresses to listen on, e.g. `127.0.0.1`, `::1`, `0.0.0.0`, `::`.
    public var bindAddresses: [String] = ["127.0.0.1"]
    /// TCP port; 0 picks a free one (see `HTTPServer.boundPorts`).
    public var port: Int = 5984
    public var limits = Limits()
    /// A keep-alive connection with no request for this long is closed.
    public var idleTimeout: Duration = .seconds(300)
    /// A request whose line and headers take longer than this gets 408 and a close.
    public var headerTimeout: Duration = .seconds(60)
    /// A body that makes no progress for this long ends the connection.
    public var bodyTimeout: Duration = .seconds(60)
    /// Connections beyond this are accepted, answered (503 on plain HTTP, a TLS
    /// `internal_error` alert with no handshake on HTTPS) and closed at once.
    /// 12,000: room for 10,000 idle `_changes` feeds (issue 45's target) and the
    /// requests, replications and admins beside them (`[settee] max_connections`).
    public var maxConnections: Int = 12_000
    /// Plain HTTP on `port`; false serves HTTPS only (needs `tls`).
    public var servesPlainHTTP = true
    /// HTTPS on its own port, on the same addresses (CouchDB's `[ssl]`).
    public var tls: TLSListener?
    /// Event-loop threads (`EventLoops`); nil for one per two cores. Each also runs its
    /// plain-HTTP connections' light requests.
    public var eventLoops: Int?

    public init() {}
}

/// An HTTPS listener: its port and certificate, and how long a client may take
/// to finish its handshake before the connection is dropped.
public struct TLSListener: Sendable {
    public var port: Int
    public var context: TLSContext
    public var handshakeTimeout: Duration = .seconds(10)
    /// Which record layer carries TLS 1.3 AES-GCM sessions after the handshake.
    public var recordLayer: TLSRecordLayer = .settee

    public init(port: Int, context: TLSContext) {
        self.port = port
        self.context = context
    }
}
