/// What a `Connection` needs of the byte stream under it, and nothing more:
/// the plain TCP socket (`AsyncSocket`) today, a TLS session beside it later,
/// and a scripted fake in tests. One task reads and one writes at a time.
protocol Transport: AnyObject, Sendable {
    /// The peer's address, for logs and `HTTPRequest.remoteAddress`.
    var peer: String { get }
    /// The common name of a verified client certificate (TLS only).
    var clientName: String? { get }
    /// True once the peer shut down its side; lets an idle stream notice a gone client.
    var isPeerClosed: Bool { get }
    /// Runs `action` once when the peer closes; nil clears it.
    func onPeerClose(_ action: (@Sendable () -> Void)?)
    /// Up to `maxBytes` bytes; empty at end of stream.
    /// - Throws: `HTTPError.timedOut` past `deadline`, `.connectionClosed`, `.socket`.
    func read(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8]
    /// Writes all of `bytes`. - Throws: `HTTPError.connectionClosed`, `.timedOut` past `deadline`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws
    /// Sends end of stream, keeping the read side open (a lingering close).
    func shutdownWrite()
    /// Makes pending and future waits throw `error` (stops an idle connection).
    func interrupt(_ error: HTTPError)
    /// Releases the transport; idempotent.
    func close()
}

extension Transport {
    /// The user a verified TLS client certificate names; nil on plain sockets.
    var clientName: String? { nil }

    /// A read of at most 64 KiB, the size a request head or body chunk is read in.
    func read(deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        try await read(maxBytes: 64 * 1024, deadline: deadline)
    }
}
