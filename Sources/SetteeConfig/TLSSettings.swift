public import SetteeHTTP

/// `[ssl]` as CouchDB names it: HTTPS on its own port (6984) beside HTTP.
/// With no `cert_file`/`key_file`, a self-signed certificate is made on first
/// start and kept in the data directory (`TLSFiles`).
public struct TLSSettings: Sendable {
    public var enabled = false
    public var port = 6984
    public var certificateFile: String?
    public var keyFile: String?
    /// Seconds a client may take to finish its handshake.
    public var handshakeTimeout = 10
    /// `verify_ssl_certificates` with `cacert_file`: ask clients for a certificate signed
    /// by these CAs; a verified one logs in the user its common name names.
    public var verifyClientCertificates = false
    public var clientCAFile: String?
    /// `fail_if_no_peer_cert`: refuse clients without one.
    public var requireClientCertificate = false
    /// `record_layer` (Settee's own): which record layer carries TLS 1.3 AES-GCM sessions
    /// after the handshake; `openssl` keeps every session with OpenSSL throughout.
    public var recordLayer = TLSRecordLayer.settee

    public init() {}
}
