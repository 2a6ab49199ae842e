/// Which record layer carries a TLS 1.3 AES-GCM session after its handshake
/// (`[ssl] record_layer`). Other sessions (TLS 1.2, ChaCha20, small records) are
/// OpenSSL's either way.
public enum TLSRecordLayer: String, Sendable, CaseIterable {
    /// The server's own (`TLS13Records`): cheaper per record than OpenSSL 3.0's (bench/tls).
    case settee
    /// OpenSSL's, throughout: for a deployment that wants only OpenSSL's code on the wire.
    case openssl

    /// What a setting of it must be, for a refusal: "settee or openssl".
    public static var expectation: String { allCases.map(\.rawValue).joined(separator: " or ") }
}
