internal import COpenSSL
internal import Glibc
internal import Synchronization

/// A TLS session over a registered non-blocking socket. OpenSSL reads and writes
/// the file descriptor itself; when it wants to and cannot (EAGAIN), the call
/// suspends on the socket's readiness like a plain read or write, so a slow or
/// silent peer holds one task, never the event loop.
///
/// A TLS 1.3 session with an AES-GCM suite leaves OpenSSL once the handshake is done:
/// `TLS13Records` frames its records from then on (bench/tls). Other sessions (TLS 1.2,
/// ChaCha20) stay with OpenSSL throughout.
///
/// One task reads and one writes at a time (the `Transport` contract); the two
/// may run at once, so every call into the SSL object or the records is made under `lock`.
final class TLSTransport: Transport, @unchecked Sendable {
    // @unchecked: the SSL object and the records are touched only under `lock`.
    private let socket: AsyncSocket
    private struct Session {
        /// OpenSSL's session; nil once closed, or once the records took over.
        var ssl: OpaquePointer?
        var records: TLS13Records?
        var closed = false
    }
    private let lock: Mutex<Session>
    /// Where OpenSSL's key log callback leaves the session's traffic secrets (shim.h);
    /// wiped once the records have their keys (or OpenSSL keeps the session), freed in `close`.
    private let secrets: UnsafeMutablePointer<settee_tls13_secrets>
    /// The last read left the socket drained (`isDrained`), so the next read waits for the
    /// socket first (as `AsyncSocket` does): a keep-alive request then costs no `SSL_read`
    /// that can only fail with "want read".
    private let wasDrained = Atomic<Bool>(false)
    /// Set once `lock`'s records exist; read without the lock on every call.
    private let usesOwnRecords = Atomic<Bool>(false)
    private let context: TLSContext

    var peer: String { socket.peer }
    /// The common name of the client's certificate, when it sent one that verified.
    private(set) var clientName: String?
    var isPeerClosed: Bool { socket.isPeerClosed }
    func onPeerClose(_ action: (@Sendable () -> Void)?) { socket.onPeerClose(action) }

    /// - Throws: `TLSError.openSSL` when no session can be made (the socket is closed then).
    init(_ socket: AsyncSocket, context: TLSContext) throws(TLSError) {
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
        secrets = .allocate(capacity: 1)
        secrets.initialize(to: settee_tls13_secrets())
        _ = settee_ssl_set_secrets(ssl, secrets)
        // No read-ahead during the handshake: OpenSSL then reads no byte past the client's
        // Finished, and the first record after it is the records' to open.
        SSL_set_read_ahead(ssl, 0)
        self.socket = socket
        self.context = context
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
                takeOverRecords()
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
        if usesOwnRecords.load(ordering: .relaxed) { return try await readRecords(maxBytes: maxBytes, deadline: deadline) }
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
        if usesOwnRecords.load(ordering: .relaxed) { return try await writeRecords(bytes, deadline: deadline) }
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

    /// After a TLS 1.3 handshake with an AES-GCM suite, moves the session to
    /// `TLS13Records` and releases OpenSSL's (and its buffers). The server's first secret
    /// goes on at the sequence number after the records OpenSSL wrote under it (its session
    /// tickets, counted by shim.h's message callback); the client's is still at 0: nothing
    /// after its Finished has been read. Nothing goes on the wire for the move: a client
    /// sees what OpenSSL alone would send (a KeyUpdate here, as earlier versions sent,
    /// stops clients that expect data or tickets first, tlsfuzzer's scripts among them).
    /// Any other session goes on with OpenSSL, reading ahead again.
    private func takeOverRecords() {
        defer { lock.withLock { session in if !session.closed { wipeSecrets() } } }
        lock.withLock { session in
            guard let ssl = session.ssl else { return }
            var clientSecret = secretBytes(client: true), serverSecret = secretBytes(client: false)
            defer {
                clientSecret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
                serverSecret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            }
            guard SSL_version(ssl) == TLS1_3_VERSION, let cipher = SSL_get_current_cipher(ssl),
                  let suite = TLS13TrafficKey.Suite(protocolID: SSL_CIPHER_get_protocol_id(cipher)),
                  // A client that asked for smaller records (RFC 6066's max_fragment_length,
                  // small devices) gets them from OpenSSL; the records always fill 16 KiB.
                  let negotiated = SSL_get_session(ssl),
                  SSL_SESSION_get_max_fragment_length(negotiated) == UInt8(TLSEXT_max_fragment_length_DISABLED),
                  !clientSecret.isEmpty, !serverSecret.isEmpty,
                  SSL_has_pending(ssl) == 0, SSL_want(ssl) == SSL_NOTHING,
                  SSL_get_key_update_type(ssl) == SSL_KEY_UPDATE_NONE,
                  let readKey = TLS13TrafficKey(secret: clientSecret, suite: suite, sealing: false),
                  let writeKey = TLS13TrafficKey(secret: serverSecret, suite: suite, sealing: true,
                                                 sequence: UInt64(secrets.pointee.server_records))
            else {
                SSL_set_read_ahead(ssl, 1)
                return
            }
            session.records = TLS13Records(readKey: readKey, writeKey: writeKey)
            // Marked shut down, so freeing it does not drop its session from the cache.
            SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN)
            SSL_free(ssl)
            session.ssl = nil
            usesOwnRecords.store(true, ordering: .relaxed)
            context.sessionsOnOwnRecords.add(1, ordering: .relaxed)
        }
    }

    /// Application data through `TLS13Records`, reading ciphertext as it needs it.
    private func readRecords(maxBytes: Int, deadline: ContinuousClock.Instant?) async throws -> [UInt8] {
        while true {
            let outcome = lock.withLock { session -> Result<TLS13Records.Opened, TLS13Records.Failure> in
                guard !session.closed, let records = session.records else { return .success(.closed) }
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
        let sealed = lock.withLock { session -> [UInt8]? in
            session.closed ? nil : session.records?.sealOwedKeyUpdate()
        }
        guard let sealed else { return }
        try await socket.write(sealed, deadline: deadline)
    }

    private func writeRecords(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws {
        let sealed = lock.withLock { session -> [UInt8]? in
            guard !session.closed, let records = session.records else { return nil }
            return bytes.withUnsafeBytes { records.seal($0) }
        }
        guard let sealed else { throw HTTPError.connectionClosed }
        try await socket.write(sealed, deadline: deadline)
    }

    /// Sends an alert if the socket takes it now; the connection is ending either way.
    private func sendAlert(_ description: UInt8) {
        let sealed = lock.withLock { session -> [UInt8]? in
            session.closed ? nil : session.records?.sealAlert(description)
        }
        guard let sealed else { return }
        _ = try? sealed.withUnsafeBytes { raw throws(HTTPError) in try socket.socket.send(raw) }
    }

    /// A copy of the client's or the server's captured traffic secret.
    private func secretBytes(client: Bool) -> [UInt8] {
        let length = Int(client ? secrets.pointee.client_length : secrets.pointee.server_length)
        return client ? withUnsafeBytes(of: secrets.pointee.client) { Array($0.prefix(length)) }
            : withUnsafeBytes(of: secrets.pointee.server) { Array($0.prefix(length)) }
    }

    /// Zeroes the captured secrets (under `lock`, before the SSL object is freed).
    private func wipeSecrets() {
        OPENSSL_cleanse(secrets, MemoryLayout<settee_tls13_secrets>.size)
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

    /// Sends close_notify, then ends the TCP write side.
    func shutdownWrite() {
        if usesOwnRecords.load(ordering: .relaxed) {
            sendAlert(TLS13Records.Alert.closeNotify)
        } else {
            _ = step { SSL_shutdown($0) }
        }
        socket.shutdownWrite()
    }

    func interrupt(_ error: HTTPError) { socket.interrupt(error) }

    func close() {
        let wasOpen = lock.withLock { session in
            defer { session.closed = true }
            guard !session.closed else { return false }
            if let ssl = session.ssl { SSL_free(ssl) }
            session.ssl = nil
            session.records = nil
            wipeSecrets()
            secrets.deallocate()
            return true
        }
        if wasOpen { socket.close() }
    }

    deinit { close() }
}
