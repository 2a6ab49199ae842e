internal import Synchronization

/// A TLS 1.3 session's application data once OpenSSL's handshake is done and its records
/// were handed over (`OpenSSLTransport.handOverRecords`): `TLS13Records` frames, protects
/// and opens the records (RFC 8446 §5), and this reads and writes the socket for them,
/// answers a KeyUpdate that asked for one, and sends the alert a refused record earns.
/// OpenSSL plays no part any more (bench/tls: its per-record bookkeeping was most of what
/// HTTPS cost over HTTP on keep-alive GETs).
///
/// One task reads and one writes at a time (the `Transport` contract); the two
/// may run at once, so every call into the records is made under `lock`.
final class TLS13RecordTransport: Transport, @unchecked Sendable {
    // @unchecked: the records are touched only under `lock`.
    private let socket: AsyncSocket
    private struct Session {
        /// Nil once closed.
        var records: TLS13Records?
    }
    private let lock: Mutex<Session>

    var peer: String { socket.peer }
    var isPeerClosed: Bool { socket.isPeerClosed }
    func onPeerClose(_ action: (@Sendable () -> Void)?) { socket.onPeerClose(action) }

    /// Takes over `socket` (closed by `close`) with the session's `records`.
    init(_ socket: AsyncSocket, records: sending TLS13Records) {
        self.socket = socket
        lock = Mutex(Session(records: records))
    }

    /// Application data through `TLS13Records`, reading ciphertext as it needs it.
    func read(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        while true {
            let outcome = lock.withLock { session -> Result<TLS13Records.Opened, TLS13Records.Failure> in
                guard let records = session.records else { return .success(.closed) }
                do throws(TLS13Records.Failure) { return .success(try records.open(maxBytes: maxBytes)) }
                catch { return .failure(error) }
            }
            switch outcome {
            case .success(.data(let bytes)): return bytes
            case .success(.closed): return []
            case .success(.needsMore):
                try await sendOwedKeyUpdate(deadline: deadline)
                let ciphertext = try await socket.read(maxBytes: 64 * 1024, deadline: deadline)
                guard !ciphertext.isEmpty else { return [] }  // closed without close_notify
                lock.withLock { session in session.records?.receive(ciphertext) }
            case .failure(let failure):
                if let alert = failure.alert { sendAlert(alert) }
                throw HTTPError.connectionClosed
            }
        }
    }

    /// Answers a KeyUpdate that asked for one at once, as OpenSSL does, rather than with the
    /// next response (RFC 8446 §4.6.3 allows either, but a client may wait for it before it
    /// sends the rest of its request: tlsfuzzer's does). The server reads a request before
    /// it answers it, so no response is being written meanwhile.
    private func sendOwedKeyUpdate(deadline: ContinuousClock.Instant?) async throws {
        let sealed = lock.withLock { session in session.records?.sealOwedKeyUpdate() }
        guard let sealed else { return }
        try await socket.write(sealed, deadline: deadline)
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws {
        let sealed = lock.withLock { session -> [UInt8]? in
            guard let records = session.records else { return nil }
            return bytes.withUnsafeBytes { records.seal($0) }
        }
        guard let sealed else { throw HTTPError.connectionClosed }
        try await socket.write(sealed, deadline: deadline)
    }

    /// Sends an alert if the socket takes it now; the connection is ending either way.
    private func sendAlert(_ description: UInt8) {
        let sealed = lock.withLock { session in session.records?.sealAlert(description) }
        guard let sealed else { return }
        _ = try? sealed.withUnsafeBytes { raw throws(HTTPError) in try socket.socket.send(raw) }
    }

    /// Sends close_notify (§6.1), then ends the TCP write side.
    func shutdownWrite() {
        sendAlert(TLS13Records.Alert.closeNotify)
        socket.shutdownWrite()
    }

    func interrupt(_ error: HTTPError) { socket.interrupt(error) }

    /// Drops the records (their keys are wiped as they go) and closes the socket.
    func close() {
        let wasOpen = lock.withLock { session in
            defer { session.records = nil }
            return session.records != nil
        }
        if wasOpen { socket.close() }
    }

    deinit { close() }
}
