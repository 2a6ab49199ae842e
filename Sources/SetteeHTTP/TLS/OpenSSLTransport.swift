internal import COpenSSL
internal import Glibc
internal import Synchronization

/// The OpenSSL driver of a server TLS session over a registered non-blocking socket: the
/// handshake, the client certificate's name, and OpenSSL's own records for every session
/// the server's record layer does not take (TLS 1.2, ChaCha20, clients that asked for
/// small records, every session with `[ssl] record_layer = openssl`), through to
/// close_notify. OpenSSL reads and writes the file descriptor itself (shim.h's recv/send
/// BIO); when it wants to and cannot (EAGAIN), the call suspends on the socket's readiness
/// like a plain read or write, so a slow or silent peer holds one task, never the event loop.
///
/// A session that captures its secrets (`TLS13SecretCapture`) can hand its records over
/// after the handshake (`handOverRecords`): OpenSSL's session is freed then, and the
/// socket is the caller's (`TLSTransport` gives it to `TLS13RecordTransport`).
///
/// One task reads and one writes at a time (the `Transport` contract); the two
/// may run at once, so every call into the SSL object is made under `lock`.
final class OpenSSLTransport: Transport, @unchecked Sendable {
    // @unchecked: the SSL object and the capture are touched only under `lock`;
    // `clientName` is set once, by the handshake, before any read or write.
    private let socket: AsyncSocket
    private struct Session {
        /// OpenSSL's session; nil once closed, or once its records were handed over.
        var ssl: OpaquePointer?
        var isClosed = false
        /// The records and the socket went to the server's record layer.
        var isHandedOver = false
    }
    private let lock: Mutex<Session>
    /// Where the session's traffic secrets are captured; nil when they are not (OpenSSL keeps it).
    private let secrets: TLS13SecretCapture?
    /// The last read left the socket drained (`isDrained`), so the next read waits for the
    /// socket first (as `AsyncSocket` does): a keep-alive request then costs no `SSL_read`
    /// that can only fail with "want read".
    private let wasDrained = Atomic<Bool>(false)

    var peer: String { socket.peer }
    /// The common name of the client's certificate, when it sent one that verified.
    private(set) var clientName: String?
    var isPeerClosed: Bool { socket.isPeerClosed }
    func onPeerClose(_ action: (@Sendable () -> Void)?) { socket.onPeerClose(action) }

    /// - Parameter capturesSecrets: keep the TLS 1.3 traffic secrets, so that the records
    ///   can be handed over after the handshake.
    /// - Throws: `TLSError.openSSL` when no session can be made (the socket is closed then).
    init(_ socket: AsyncSocket, context: TLSContext, capturesSecrets: Bool) throws(TLSError) {
        guard let ssl = SSL_new(context.context) else {
            socket.close()
            throw TLSError.openSSL("SSL_new")
        }
        guard let method = Self.socketMethod, let bio = settee_socket_bio_new(method, socket.socket.fd) else {
            SSL_free(ssl)
            socket.close()
            throw TLSError.openSSL("BIO_new")
        }
        SSL_set_bio(ssl, bio, bio)  // the session owns the BIO; the BIO does not own the fd
        if capturesSecrets {
            let capture = TLS13SecretCapture()
            capture.attach(to: ssl)
            secrets = capture
            // No read-ahead during the handshake: OpenSSL then reads no byte past the client's
            // Finished, and the first record after it is the record layer's to open.
            SSL_set_read_ahead(ssl, 0)
        } else {
            secrets = nil
        }
        self.socket = socket
        lock = Mutex(Session(ssl: ssl))
    }

    /// The BIO methods every session's socket uses (recv/send; see shim.h), made once.
    nonisolated(unsafe) private static let socketMethod = settee_socket_bio_method_new()

    /// What one SSL call asks for next.
    private enum Step {
        case done(Int32)
        case wait(IOWaiter.Direction)
        case closed
        case failed(String)
    }

    /// Runs `call` on the session under the lock and reads OpenSSL's verdict.
    private func step(_ call: (OpaquePointer) -> Int32) -> Step {
        lock.withLock { session in
            guard let ssl = session.ssl else { return .closed }
            ERR_clear_error()
            let result = call(ssl)
            if result > 0 { return .done(result) }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: return .wait(.read)
            case SSL_ERROR_WANT_WRITE: return .wait(.write)
            case SSL_ERROR_ZERO_RETURN: return .closed
            case SSL_ERROR_SYSCALL: return .closed  // EOF or reset without close_notify
            default: return .failed(TLSError.lastOpenSSLReason())
            }
        }
    }

    /// Completes the server side of the handshake by `deadline`.
    /// - Throws: `TLSError.handshake` (not TLS, a refused version, a stalled or vanished client).
    func handshake(deadline: ContinuousClock.Instant) async throws {
        while true {
            switch step({ SSL_accept($0) }) {
            case .done:
                clientName = lock.withLock { session in session.ssl.flatMap(Self.verifiedClientName) }
                return
            case .wait(let direction):
                do {
                    try await socket.waitUntilReady(for: direction, deadline: deadline)
                } catch HTTPError.timedOut {
                    throw TLSError.handshake("not finished in time")
                }
            case .closed: throw TLSError.handshake("the client closed the connection")
            case .failed(let reason): throw TLSError.handshake(reason)
            }
        }
    }

    func read(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        // `wasDrained` already says OpenSSL held nothing then; writes since do not read.
        if wasDrained.load(ordering: .relaxed) && !socket.isPeerClosed {
            try await socket.waitUntilReady(for: .read, deadline: deadline)
        }
        // One SSL_read returns at most one record: 16 KiB of plaintext.
        let capacity = min(maxBytes, 16 * 1024)
        while true {
            var outcome = Step.closed
            // Read into scratch space and keep only what came, as `Socket.receive` does: a
            // keep-alive request is a few hundred bytes, not a 16 KiB array each.
            let bytes = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
                outcome = step { SSL_read($0, scratch.baseAddress, Int32(capacity)) }
                guard case .done(let n) = outcome else { return [UInt8]() }
                return Array(scratch[..<Int(n)])
            }
            switch outcome {
            case .done:
                wasDrained.store(isDrained(), ordering: .relaxed)
                return bytes
            case .wait(.read): try await socket.waitUntilReady(for: .read, deadline: deadline)
            case .wait(.write): try await crossWait(deadline)
            case .closed: return []
            case .failed: throw HTTPError.connectionClosed
            }
        }
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws {
        var offset = 0
        while offset < bytes.count {
            let outcome = bytes.withUnsafeBytes { raw in
                step { SSL_write($0, raw.baseAddress! + offset, Int32(min(raw.count - offset, Int(Int32.max)))) }
            }
            switch outcome {
            case .done(let n): offset += Int(n)
            case .wait(.write): try await socket.waitUntilReady(for: .write, deadline: deadline)
            case .wait(.read): try await crossWait(deadline)
            case .closed, .failed: throw HTTPError.connectionClosed
            }
        }
    }

    /// Whether the socket's last recv found the kernel's queue empty and OpenSSL holds
    /// nothing read from it: only then can the next read wait for new bytes first.
    private func isDrained() -> Bool {
        lock.withLock { session in
            guard let ssl = session.ssl else { return false }
            return SSL_has_pending(ssl) == 0 && settee_socket_bio_drained(SSL_get_rbio(ssl)) == 1
        }
    }

    /// A read that must write first, or a write that must read (TLS 1.3 key
    /// updates): the other direction may have its own waiter, and one socket has
    /// one waiter per direction, so this retries after a millisecond instead.
    private func crossWait(_ deadline: ContinuousClock.Instant?) async throws {
        if let deadline, ContinuousClock.now >= deadline { throw HTTPError.timedOut }
        try await Task.sleep(for: .milliseconds(1))
    }

    /// After the handshake, the session's records keyed for the server's own record layer
    /// when it can take them: TLS 1.3 with an AES-GCM suite, full-size records (a client
    /// that asked for smaller ones, RFC 6066's max_fragment_length, gets them from OpenSSL),
    /// nothing read ahead or owed. OpenSSL's session (and its buffers) is freed then and the
    /// socket is the caller's. The server's first secret goes on at the sequence number
    /// after the records OpenSSL wrote under it (its session tickets); the client's is
    /// still at 0: nothing after its Finished has been read. Nothing goes on the wire for
    /// the move: a client sees what OpenSSL alone would send (a KeyUpdate here, as earlier
    /// versions sent, stops clients that expect data or tickets first, tlsfuzzer's scripts
    /// among them). Nil: the session goes on with OpenSSL, reading ahead again.
    func handOverRecords() -> TLS13Records? {
        lock.withLock { session in
            guard let ssl = session.ssl, let secrets else { return nil }
            let records = Self.records(of: ssl, secrets: secrets)
            secrets.detach(from: ssl)
            guard let records else {
                SSL_set_read_ahead(ssl, 1)
                return nil
            }
            // Marked shut down, so freeing it does not drop its session from the cache.
            SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN)
            SSL_free(ssl)
            session.ssl = nil
            session.isHandedOver = true
            return records
        }
    }

    /// The records for `ssl`'s keys, when the record layer can take its session over now.
    private static func records(of ssl: OpaquePointer, secrets: TLS13SecretCapture) -> TLS13Records? {
        guard SSL_version(ssl) == TLS1_3_VERSION, let cipher = SSL_get_current_cipher(ssl),
              let suite = TLS13TrafficKey.Suite(protocolID: SSL_CIPHER_get_protocol_id(cipher)),
              let negotiated = SSL_get_session(ssl),
              SSL_SESSION_get_max_fragment_length(negotiated) == UInt8(TLSEXT_max_fragment_length_DISABLED),
              !secrets.clientSecret.isEmpty, !secrets.serverSecret.isEmpty,
              SSL_has_pending(ssl) == 0, SSL_want(ssl) == SSL_NOTHING,
              SSL_get_key_update_type(ssl) == SSL_KEY_UPDATE_NONE,
              let readKey = TLS13TrafficKey(secret: secrets.clientSecret, suite: suite, sealing: false),
              let writeKey = TLS13TrafficKey(secret: secrets.serverSecret, suite: suite, sealing: true,
                                             sequence: secrets.serverRecords)
        else { return nil }
        return TLS13Records(readKey: readKey, writeKey: writeKey)
    }

    /// The subject common name of a client certificate that verified against the
    /// configured CAs; nil without one (or when clients are not asked).
    private static func verifiedClientName(_ ssl: OpaquePointer) -> String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard SSL_get_verify_result(ssl) == X509_V_OK, let subject = X509_get_subject_name(certificate) else { return nil }
        let index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(subject, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length > 0, let utf8 else { return nil }
        defer { CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    /// Sends close_notify, then ends the TCP write side (unless the records were handed over).
    func shutdownWrite() {
        _ = step { SSL_shutdown($0) }
        if !lock.withLock({ $0.isHandedOver }) { socket.shutdownWrite() }
    }

    func interrupt(_ error: HTTPError) { socket.interrupt(error) }

    /// Frees the session and closes the socket, unless both were handed over.
    func close() {
        let closesSocket = lock.withLock { session in
            defer { session.isClosed = true }
            guard !session.isClosed else { return false }
            if let ssl = session.ssl {
                secrets?.detach(from: ssl)
                SSL_free(ssl)
            }
            session.ssl = nil
            return !session.isHandedOver
        }
        if closesSocket { socket.close() }
    }

    deinit { close() }
}
