internal import Dispatch
internal import SetteeConfig
internal import SetteeHTTP

extension Listener {
    /// Where an HTTPS listener's certificate and key come from: the choices of
    /// `settee serve`'s `[ssl]` section, resolved by the same code (`TLSFiles`).
    public enum TLS: Sendable, Hashable {
        /// The data directory's own self-signed certificate (ECDSA P-256, the host's
        /// names and addresses as subject alternative names), made on first use in
        /// `<data dir>/tls/` and kept: the pair `settee serve` makes and serves on the
        /// same directory, so the fingerprint peers pinned stays the same across restarts.
        case selfSigned
        /// A certificate and its private key, PEM files (`[ssl] cert_file`, `key_file`).
        case files(certificate: String, key: String)

        /// The server's HTTPS listener on `port`, its certificate loaded (made first when
        /// needed). File work (key generation, writes, fsync) runs off the cooperative pool.
        func listener(port: Int, dataDirectory: String, address: String,
                      recordLayer: RecordLayer) async throws(SetteeError) -> TLSListener {
            var settings = TLSSettings()
            settings.enabled = true
            settings.port = port
            if case .files(let certificate, let key) = self {
                settings.certificateFile = certificate
                settings.keyFile = key
            }
            let wanted = settings
            let loaded: Result<TLSContext, SetteeError> = await withCheckedContinuation { continuation in
                Self.fileQueue.async {
                    continuation.resume(returning: Self.context(wanted, dataDirectory: dataDirectory, address: address))
                }
            }
            var listener = TLSListener(port: port, context: try loaded.get())
            listener.handshakeTimeout = .seconds(settings.handshakeTimeout)
            listener.recordLayer = recordLayer.http
            return listener
        }

        private static let fileQueue = DispatchQueue(label: "settee.listener-tls")

        private static func context(_ settings: TLSSettings, dataDirectory: String,
                                    address: String) -> Result<TLSContext, SetteeError> {
            do {
                let files = try TLSFiles.resolve(settings, dataDirectory: dataDirectory, bindAddresses: [address])
                return .success(try TLSContext(certificateFile: files.certificate, keyFile: files.key))
            } catch {
                return .failure(.listener("TLS: \(error)"))
            }
        }
    }

    /// Which record layer carries an HTTPS listener's TLS 1.3 AES-GCM sessions after the
    /// handshake: `settee serve`'s `[ssl] record_layer`, with the same default. TLS 1.2,
    /// ChaCha20 and clients asking for small records are OpenSSL's either way.
    public enum RecordLayer: String, Sendable, Hashable, CaseIterable {
        /// Settee's own, cheaper per record than OpenSSL 3.0's (bench/tls).
        case settee
        /// OpenSSL's, throughout: for a deployment that wants only OpenSSL's code on the wire.
        case openssl

        var http: TLSRecordLayer {
            switch self {
            case .settee: .settee
            case .openssl: .openssl
            }
        }
    }
}
