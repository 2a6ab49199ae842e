internal import COpenSSL
import Synchronization

/// A server's TLS settings, loaded once and shared by every connection: the
/// certificate and key, TLS 1.2 as the floor, modern cipher suites only, no
/// renegotiation, and ALPN `http/1.1` (the only protocol this server speaks).
public final class TLSContext: @unchecked Sendable {
    // @unchecked: an SSL_CTX is safe to share once configured (OpenSSL locks its
    // session cache); nothing here changes it after init.
    let context: OpaquePointer
    /// The certificate's SHA-256 fingerprint, `AB:CD:…` as `openssl x509 -fingerprint` prints it.
    public let fingerprint: String

    /// TLS 1.2 suites with forward secrecy and AEAD; TLS 1.3's are OpenSSL's defaults (all AEAD).
    static let tls12Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// Whether clients are asked for a certificate (`clientCAFile` given).
    public let verifiesClients: Bool
    /// Sessions moved to the server's own record layer (`TLS13Records`) so far.
    let sessionsOnOwnRecords = Atomic<Int>(0)

    static let tls13Suites = "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384"

    /// Loads a PEM certificate (chain) and its private key.
    /// - Parameters:
    ///   - clientCAFile: PEM certificates a client certificate must chain to; clients are
    ///     then asked for one, and a verified one names its user (`OpenSSLTransport.clientName`).
    ///   - requireClientCertificate: refuse the handshake of a client without one.
    /// - Throws: `TLSError` naming the file and OpenSSL's reason.
    public init(certificateFile: String, keyFile: String, clientCAFile: String? = nil,
                requireClientCertificate: Bool = false) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError.openSSL("SSL_CTX_new") }
        self.context = context
        _ = settee_ssl_ctx_set_min_proto_version(context, TLS1_2_VERSION)
        SSL_CTX_set_options(context, settee_ssl_op_no_renegotiation() | settee_ssl_op_cipher_server_preference())
        _ = settee_ssl_ctx_set_mode(context, settee_ssl_mode_partial_write())
        _ = SSL_CTX_set_cipher_list(context, Self.tls12Ciphers)
        // TLS 1.3: AES-128-GCM first (OpenSSL's default puts AES-256 first; 128-bit keys
        // are as safe here and cheaper per record for both ends), with server preference.
        _ = SSL_CTX_set_ciphersuites(context, Self.tls13Suites)
        // Read whole socket buffers, not a record header and then its body: one recv per
        // request instead of two (bench/tls).
        settee_ssl_ctx_set_read_ahead(context, 1)
        // The TLS 1.3 traffic secrets of sessions that capture them go to the server's own
        // record layer (TLS13RecordTransport).
        TLS13SecretCapture.installKeyLog(on: context)
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            SSL_CTX_free(context)
            throw TLSError.file(certificateFile, TLSError.lastOpenSSLReason())
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            throw TLSError.file(keyFile, TLSError.lastOpenSSLReason())
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            throw TLSError.file(keyFile, "the key does not match the certificate in \(certificateFile)")
        }
        guard let certificate = SSL_CTX_get0_certificate(context) else {
            SSL_CTX_free(context)
            throw TLSError.file(certificateFile, "no certificate")
        }
        fingerprint = TLSFingerprint.sha256(of: certificate)
        verifiesClients = clientCAFile != nil
        if let clientCAFile {
            guard SSL_CTX_load_verify_locations(context, clientCAFile, nil) == 1,
                  let names = SSL_load_client_CA_file(clientCAFile) else {
                SSL_CTX_free(context)
                throw TLSError.file(clientCAFile, TLSError.lastOpenSSLReason())
            }
            SSL_CTX_set_client_CA_list(context, names)
            SSL_CTX_set_verify(context, settee_ssl_verify_peer(requireClientCertificate ? 1 : 0), nil)
            // Resumed sessions keep their verified client; OpenSSL needs a context id for that.
            let id = Array("settee".utf8)
            _ = SSL_CTX_set_session_id_context(context, id, UInt32(id.count))
        }
        SSL_CTX_set_alpn_select_cb(context, { _, out, outLength, offered, offeredLength, _ in
            // Only http/1.1 is spoken; a client that offers nothing we speak goes on without ALPN.
            let chosen = TLSContext.alpnProtocols.withUnsafeBufferPointer { ours in
                // `out` is `const unsigned char **`; OpenSSL's chooser takes it without the const.
                SSL_select_next_proto(UnsafeMutableRawPointer(out!).assumingMemoryBound(
                    to: UnsafeMutablePointer<UInt8>?.self), outLength,
                    ours.baseAddress, UInt32(ours.count), offered, offeredLength)
            }
            return chosen == OPENSSL_NPN_NEGOTIATED ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK
        }, nil)
    }

    deinit { SSL_CTX_free(context) }

    /// ALPN's wire form: a length byte, then the name.
    nonisolated(unsafe) static let alpnProtocols: [UInt8] = [8] + Array("http/1.1".utf8)
}
