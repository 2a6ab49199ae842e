public import Logging

/// An HTTP/1.1 server over non-blocking POSIX sockets and epoll.
///
/// API CONTRACT — implementation to be completed by the HTTP work.
///
///     let server = HTTPServer(configuration: config, responder: router, logger: logger)
///     let ports = try server.start()      // listening now
///     try await server.run()              // returns after shutdown()
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration

    public init(configuration: ServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
    }

    /// Binds every configured address and starts accepting.
    /// - Returns: the bound port of each listener (useful with port 0).
    /// - Throws: `HTTPError.socket` when an address cannot be bound.
    public func start() throws -> [Int] { [] }

    /// Suspends until the server has shut down.
    public func run() async {}

    /// Stops accepting, lets in-flight requests finish (streams are ended),
    /// closes idle connections, and returns when all connections are closed.
    public func shutdown() async {}
}
