internal import Synchronization

/// The server's side of one TLS connection, as its `Connection` sees it. OpenSSL drives
/// the handshake (`OpenSSLTransport`); a TLS 1.3 session with an AES-GCM suite then moves
/// to the server's own record layer (`TLS13RecordTransport`), unless the listener keeps
/// OpenSSL's (`TLSRecordLayer.openssl`). Every other session stays with OpenSSL throughout.
/// The move happens once, when the handshake returns, before the connection reads or writes.
final class TLSTransport: Transport {
    private let socket: AsyncSocket
    private let driver: OpenSSLTransport
    private let recordLayer: TLSRecordLayer
    private let context: TLSContext
    private struct Phase {
        /// Set once the session's records moved to the server's record layer.
        var ownRecords: TLS13RecordTransport?
        var isClosed = false
    }
    private let phase = Mutex(Phase())

    var peer: String { socket.peer }
    /// The common name of the client's certificate, when it sent one that verified.
    var clientName: String? { driver.clientName }
    var isPeerClosed: Bool { socket.isPeerClosed }
    func onPeerClose(_ action: (@Sendable () -> Void)?) { socket.onPeerClose(action) }
    /// Whether the server's own record layer carries the session's records now.
    var usesOwnRecords: Bool { phase.withLock { $0.ownRecords != nil } }

    /// - Throws: `TLSError.openSSL` when no session can be made (the socket is closed then).
    init(_ socket: AsyncSocket, context: TLSContext, recordLayer: TLSRecordLayer = .settee) throws(TLSError) {
        driver = try OpenSSLTransport(socket, context: context, capturesSecrets: recordLayer == .settee)
        self.socket = socket
        self.context = context
        self.recordLayer = recordLayer
    }

    /// Completes the server side of the handshake by `deadline`, then moves the records.
    /// - Throws: `TLSError.handshake` (not TLS, a refused version, a stalled or vanished client).
    func handshake(deadline: ContinuousClock.Instant) async throws {
        try await driver.handshake(deadline: deadline)
        guard recordLayer == .settee else { return }
        phase.withLock { phase in
            guard !phase.isClosed, let records = driver.handOverRecords() else { return }
            phase.ownRecords = TLS13RecordTransport(socket, records: records)
            context.sessionsOnOwnRecords.add(1, ordering: .relaxed)
        }
    }

    /// The transport that carries the records now.
    private var current: any Transport { phase.withLock { $0.ownRecords } ?? driver }

    func read(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        try await current.read(maxBytes: maxBytes, deadline: deadline)
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws {
        try await current.write(bytes, deadline: deadline)
    }

    /// Sends close_notify, then ends the TCP write side.
    func shutdownWrite() { current.shutdownWrite() }

    func interrupt(_ error: HTTPError) { socket.interrupt(error) }

    func close() {
        let ownRecords = phase.withLock { phase in
            phase.isClosed = true
            return phase.ownRecords
        }
        ownRecords?.close()
        driver.close()
    }
}
