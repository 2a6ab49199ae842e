internal import COpenSSL

/// Why TLS could not be set up or a session failed; never carries key material.
public enum TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A certificate or key file could not be read or used.
    case file(String, String)
    /// An OpenSSL call failed.
    case openSSL(String)
    /// The handshake failed or did not finish in time.
    case handshake(String)

    public var description: String {
        switch self {
        case .file(let path, let reason): "TLS file \(path): \(reason)"
        case .openSSL(let call): "\(call) failed: \(Self.lastOpenSSLReason())"
        case .handshake(let reason): "TLS handshake: \(reason)"
        }
    }

    /// The oldest queued OpenSSL error as text (the queue is cleared).
    static func lastOpenSSLReason() -> String {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
