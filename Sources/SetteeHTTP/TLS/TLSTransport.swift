internal import COpenSSL
internal import Glibc
internal import Synchronization

/// A TLS session over a registered non-blocking socket. OpenSSL reads and writes
/// the file descriptor itself; when it wants to and cannot (EAGAIN), the call
/// suspends on the socket's readiness like a plain read or write, so a slow or
/// silent peer holds one task, never the event loop.
///
/// One task reads and one writes at a time (the `Transport` contract); the two
/// may run at once, so every call into the SSL object is made under `lock`.
final class TLSTransport: Transport, @unchecked Sendable {
    // @unchecked: `ssl` is touched only under `lock`, and freed once in `close`.
    private let socket: AsyncSocket
    private let ssl: OpaquePointer
    private let lock = Mutex(false)  // true once closed: the SSL object is gone
    /// The last read took less than it asked for and OpenSSL holds nothing more, so the
    /// next read waits for the socket first (as `AsyncSocket` does): a keep-alive request
    /// then costs no `SSL_read` that can only fail with "want read".
    private let wasDrained = Atomic<Bool>(false)

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
        self.socket = socket
        self.ssl = ssl
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
        lock.withLock { closed in
            guard !closed else { return .closed }
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
                clientName = lock.withLock { closed in closed ? nil : Self.verifiedClientName(ssl) }
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
        if wasDrained.load(ordering: .relaxed) && !socket.isPeerClosed && !hasPending() {
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
                wasDrained.store(bytes.count < capacity && !hasPending(), ordering: .relaxed)
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

    /// Whether OpenSSL holds bytes already read from the socket (a record, or part of one).
    private func hasPending() -> Bool {
        lock.withLock { closed in !closed && SSL_has_pending(ssl) == 1 }
    }

    /// A read that must write first, or a write that must read (TLS 1.3 key
    /// updates): the other direction may have its own waiter, and one socket has
    /// one waiter per direction, so this retries after a millisecond instead.
    private func crossWait(_ deadline: ContinuousClock.Instant?) async throws {
        if let deadline, ContinuousClock.now >= deadline { throw HTTPError.timedOut }
        try await Task.sleep(for: .milliseconds(1))
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
        _ = step { SSL_shutdown($0) }
        socket.shutdownWrite()
    }

    func interrupt(_ error: HTTPError) { socket.interrupt(error) }

    func close() {
        let wasOpen = lock.withLock { closed in
            defer { closed = true }
            if !closed { SSL_free(ssl) }
            return !closed
        }
        if wasOpen { socket.close() }
    }

    deinit { close() }
}
