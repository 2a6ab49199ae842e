internal import COpenSSL
internal import Glibc

/// One TLS 1.3 session's application traffic secrets, as OpenSSL reports them at the end
/// of its handshake, for the server's own record layer (`TLS13RecordTransport`); and how
/// many records OpenSSL wrote under the server's secret before its handshake returned (its
/// session tickets), so that the records go on at the next sequence number (RFC 8446 §5.3).
///
/// OpenSSL 3.0 gives a session's traffic secrets out only through the key log callback
/// (`SSL_CTX_set_keylog_callback`), which a context has once for all its sessions: the
/// callback fills the capture it finds in the session's ex_data slot 0 (OpenSSL's "app
/// data", set by `attach`), and a session without one is not captured. Nothing here writes
/// a secret anywhere else; `detach` zeroes them once the records have their keys or the
/// session stays with OpenSSL. Both callbacks run inside `SSL_accept`, under the driver's
/// lock (`OpenSSLTransport`), which is also the only place the secrets are read.
final class TLS13SecretCapture {
    private(set) var clientSecret: [UInt8] = []
    private(set) var serverSecret: [UInt8] = []
    /// Records OpenSSL wrote under the server's first application secret.
    private(set) var serverRecords: UInt64 = 0

    /// Installs the key log callback on a server context; sessions opt in with `attach`.
    static func installKeyLog(on context: OpaquePointer) {
        SSL_CTX_set_keylog_callback(context) { ssl, line in
            guard let ssl, let line, let capture = TLS13SecretCapture.attached(to: ssl) else { return }
            line.withMemoryRebound(to: UInt8.self, capacity: strlen(line)) { bytes in
                capture.take(UnsafeBufferPointer(start: bytes, count: strlen(line)))
            }
        }
    }

    /// Captures `ssl`'s secrets; the capture must outlive the session or be detached first.
    func attach(to ssl: OpaquePointer) {
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        // OpenSSL reports each record header it writes (SSL3_RT_HEADER) to the message
        // callback. The server's application secret is logged once its Finished has been
        // written, so every record written after that is under that secret.
        SSL_set_msg_callback(ssl) { isWrite, _, contentType, _, _, ssl, _ in
            guard isWrite != 0, contentType == SSL3_RT_HEADER, let ssl,
                  let capture = TLS13SecretCapture.attached(to: ssl), !capture.serverSecret.isEmpty else { return }
            capture.serverRecords += 1
        }
    }

    /// Stops capturing `ssl` and zeroes what was captured.
    func detach(from ssl: OpaquePointer) {
        _ = SSL_set_ex_data(ssl, 0, nil)
        SSL_set_msg_callback(ssl, nil)
        wipe()
    }

    /// Zeroes the secrets (they are copied nowhere but into the traffic keys).
    func wipe() {
        clientSecret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        serverSecret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        clientSecret = []
        serverSecret = []
    }

    private static func attached(to ssl: OpaquePointer) -> TLS13SecretCapture? {
        SSL_get_ex_data(ssl, 0).map { Unmanaged<TLS13SecretCapture>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Keeps the secret of a key log line "<label> <client random> <secret>" (NSS's key log
    /// format, hex) when its label names one of the two first application traffic secrets.
    private func take(_ line: UnsafeBufferPointer<UInt8>) {
        guard let labelEnd = line.firstIndex(of: UInt8(ascii: " ")) else { return }
        let label = line[..<labelEnd]
        let isClient = label.elementsEqual("CLIENT_TRAFFIC_SECRET_0".utf8)
        guard isClient || label.elementsEqual("SERVER_TRAFFIC_SECRET_0".utf8),
              let randomEnd = line[(labelEnd + 1)...].firstIndex(of: UInt8(ascii: " ")),
              let secret = Self.bytes(fromHex: line[(randomEnd + 1)...]) else { return }
        if isClient { clientSecret = secret } else { serverSecret = secret }
    }

    /// The bytes `hex` spells; nil unless it is whole pairs of hex digits, at most one digest long.
    private static func bytes(fromHex hex: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8]? {
        guard hex.count % 2 == 0, hex.count <= 2 * Int(EVP_MAX_MD_SIZE) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            guard let high = PercentDecoding.hexValue(hex[index]), let low = PercentDecoding.hexValue(hex[index + 1]) else {
                bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
