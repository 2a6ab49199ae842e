import COpenSSL
import Dispatch
import Glibc
@testable import SetteeHTTP

/// A blocking TLS client on its own dispatch queue (as `RawClient`), built on libssl with
/// memory BIOs, so a test can see the raw records: send tampered ones, send KeyUpdates,
/// and count the handshake messages and alerts the server sends after the handshake.
final class TLSTestClient: @unchecked Sendable {
    enum Failure: Error { case handshake(String), closed, tls(String) }

    private let fd: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let network: OpaquePointer  // what the server sent, for OpenSSL to read
    private let outgoing: OpaquePointer  // what OpenSSL wrote, to send
    private let queue = DispatchQueue(label: "TLSTestClient")
    private var plaintext: [UInt8] = []
    private var sawEndOfStream = false
    private let log: MessageLog

    /// What the server sent after the handshake, as the client's OpenSSL read it.
    final class MessageLog: @unchecked Sendable {
        var keyUpdates = 0
        var alerts: [UInt8] = []  // descriptions
        var handshakeDone = false
    }

    /// - Parameters:
    ///   - tls12: offer TLS 1.2 only; otherwise TLS 1.3 with `suites`.
    ///   - smallRecords: ask for records of at most 512 bytes (RFC 6066 max_fragment_length).
    init(port: Int, suites: String = "TLS_AES_128_GCM_SHA256", tls12: Bool = false, smallRecords: Bool = false) async throws {
        let address = try SocketAddress(host: "127.0.0.1", port: port)
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.withSockaddr({ connect(descriptor, $0, $1) }) == 0 else {
            close(descriptor)
            throw HTTPError.socket(call: "connect", errno: errno)
        }
        fd = descriptor
        context = SSL_CTX_new(TLS_client_method())!
        if tls12 {
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        } else {
            _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_3_VERSION), nil)
            _ = SSL_CTX_set_ciphersuites(context, suites)
        }
        if smallRecords { _ = SSL_CTX_set_tlsext_max_fragment_length(context, UInt8(TLSEXT_max_fragment_length_512)) }
        ssl = SSL_new(context)!
        network = BIO_new(BIO_s_mem())!
        outgoing = BIO_new(BIO_s_mem())!
        SSL_set_bio(ssl, network, outgoing)
        SSL_set_connect_state(ssl)
        log = MessageLog()
        SSL_set_msg_callback(ssl) { writing, _, contentType, buffer, length, _, argument in
            guard writing == 0, let buffer, let argument else { return }
            let log = Unmanaged<MessageLog>.fromOpaque(argument).takeUnretainedValue()
            let bytes = buffer.assumingMemoryBound(to: UInt8.self)
            if contentType == 22, length >= 1, bytes[0] == 24, log.handshakeDone { log.keyUpdates += 1 }
            if contentType == 21, length == 2 { log.alerts.append(bytes[1]) }
        }
        _ = SSL_ctrl(ssl, SSL_CTRL_SET_MSG_CALLBACK_ARG, 0, Unmanaged.passUnretained(log).toOpaque())
        try await queue.run { try self.handshake() }
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs
        SSL_CTX_free(context)
        close(fd)
    }

    var version: String { String(cString: SSL_get_version(ssl)) }
    var keyUpdatesReceived: Int { get async { await queue.run { self.log.keyUpdates } } }
    var alertsReceived: [UInt8] { get async { await queue.run { self.log.alerts } } }

    /// Sends an HTTP request and reads its response's status and body (Content-Length framing).
    func request(_ method: String, _ path: String, body: [UInt8] = [], headers: String = "") async throws
        -> (status: Int, body: [UInt8]) {
        try await queue.run {
            let head = "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(headers)Content-Length: \(body.count)\r\n\r\n"
            try self.write(Array(head.utf8) + body)
            return try self.readResponse()
        }
    }

    /// Schedules a KeyUpdate, sent with the next request.
    func updateKeys(requestingServerUpdate: Bool) async {
        await queue.run {
            _ = SSL_key_update(self.ssl, requestingServerUpdate ? SSL_KEY_UPDATE_REQUESTED : SSL_KEY_UPDATE_NOT_REQUESTED)
        }
    }

    /// The records OpenSSL makes of `bytes`, not sent.
    func sealedRecords(_ bytes: [UInt8]) async throws -> [UInt8] {
        try await queue.run {
            ERR_clear_error()
            guard SSL_write(self.ssl, bytes, Int32(bytes.count)) == Int32(bytes.count) else { throw Failure.tls("SSL_write") }
            return self.drainOutgoing()
        }
    }

    func sendRaw(_ bytes: [UInt8]) async {
        await queue.run { self.sendAll(bytes) }
    }

    /// Sends close_notify.
    func closeNotify() async {
        await queue.run {
            _ = SSL_shutdown(self.ssl)
            self.sendAll(self.drainOutgoing())
        }
    }

    enum Ending: Equatable { case closeNotify, closed, timedOut }

    /// Reads until the server ends the connection, or 10 s pass. Records are opened as
    /// they come (alerts logged).
    func readUntilClosed() async -> Ending {
        await queue.run {
            while true {
                var scratch = [UInt8](repeating: 0, count: 16384)
                ERR_clear_error()
                let n = SSL_read(self.ssl, &scratch, Int32(scratch.count))
                if n > 0 { continue }
                switch SSL_get_error(self.ssl, n) {
                case SSL_ERROR_ZERO_RETURN: return .closeNotify
                case SSL_ERROR_WANT_READ: if !self.fill() { return self.sawEndOfStream ? .closed : .timedOut }
                default:
                    ERR_clear_error()
                    while self.fill() {}
                    return self.sawEndOfStream ? .closed : .timedOut
                }
            }
        }
    }

    private func handshake() throws {
        while true {
            ERR_clear_error()  // SSL_get_error reads this thread's queue: another test's leftovers must not count
            let result = SSL_do_handshake(ssl)
            sendAll(drainOutgoing())
            if result == 1 { log.handshakeDone = true; return }
            guard SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ, fill() else {
                throw Failure.handshake(TLSError.lastOpenSSLReason())
            }
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        ERR_clear_error()
        guard SSL_write(ssl, bytes, Int32(bytes.count)) == Int32(bytes.count) else {
            throw Failure.tls(TLSError.lastOpenSSLReason())
        }
        sendAll(drainOutgoing())
    }

    private func readResponse() throws -> (status: Int, body: [UInt8]) {
        while true {
            if let end = headEnd() {
                let head = String(decoding: plaintext[..<end], as: UTF8.self)
                let status = Int(head.split(separator: " ")[1]) ?? 0
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].drop { $0 == " " }) } ?? 0
                if plaintext.count >= end + 4 + length {
                    let body = Array(plaintext[(end + 4)..<(end + 4 + length)])
                    plaintext.removeFirst(end + 4 + length)
                    return (status, body)
                }
            }
            try readMore()
        }
    }

    private func headEnd() -> Int? {
        guard plaintext.count >= 4 else { return nil }
        for index in 0...(plaintext.count - 4)
        where plaintext[index] == 13 && plaintext[index + 1] == 10 && plaintext[index + 2] == 13 && plaintext[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func readMore() throws {
        var scratch = [UInt8](repeating: 0, count: 16384)
        while true {
            ERR_clear_error()
            let n = SSL_read(ssl, &scratch, Int32(scratch.count))
            sendAll(drainOutgoing())  // a KeyUpdate the server asked for
            if n > 0 {
                plaintext += scratch[..<Int(n)]
                return
            }
            guard SSL_get_error(ssl, n) == SSL_ERROR_WANT_READ, fill() else { throw Failure.closed }
        }
    }

    /// Receives what the server sent into the network BIO; false at end of stream
    /// (`sawEndOfStream`), on a reset, or after 10 s without a byte.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n == 0 || (n < 0 && errno == ECONNRESET) { sawEndOfStream = true }
        guard n > 0 else { return false }
        _ = BIO_write(network, chunk, Int32(n))
        return true
    }

    private func drainOutgoing() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let n = BIO_read(outgoing, &chunk, Int32(chunk.count)), n > 0 { out += chunk[..<Int(n)] }
        return out
    }

    private func sendAll(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            offset += n
        }
    }
}
