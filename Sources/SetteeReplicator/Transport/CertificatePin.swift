internal import CCurl
internal import COpenSSL
internal import Synchronization

/*
 Pinning one certificate, for peers no authority vouches for (a Settee's
 self-signed certificate on a LAN): the connection is trusted when the server's
 own certificate has exactly the SHA-256 fingerprint given, whatever its chain
 or names, and refused otherwise, naming both fingerprints.

 libcurl hands its OpenSSL context to `CURLOPT_SSL_CTX_FUNCTION` before each
 handshake; there the pin is attached to the context and a verify callback
 installed that decides at the leaf certificate (depth 0). Chain errors above the
 leaf are overruled: they do not matter when one certificate is trusted exactly.
 */

/// One exchange's pin, and the fingerprint the server presented if it differed.
final class CertificatePin: Sendable {
    /// `AB:CD:…`, normalized.
    let expected: String
    private let presentedFingerprint = Mutex<String?>(nil)

    init(expected: String) { self.expected = expected }

    /// The server's fingerprint when it did not match; nil when it matched or no handshake ran.
    var mismatch: String? { presentedFingerprint.withLock { $0 } }

    /// Sets the pin on `handle` for its next transfer. `self` must outlive the transfer.
    func install(on handle: UnsafeMutableRawPointer) {
        // Peer verification stays on so the callback runs; host names are not checked
        // (a pinned certificate is trusted whatever address reached it).
        settee_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        settee_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        // A resumed TLS session skips certificate verification: never resume, never store.
        settee_curl_setopt_long(handle, CURLOPT_SSL_SESSIONID_CACHE, 0)
        settee_curl_setopt_pointer(handle, CURLOPT_SSL_CTX_DATA, Unmanaged.passUnretained(self).toOpaque())
        settee_curl_setopt_ssl_ctx_function(handle) { _, sslContext, pin in
            guard let sslContext, let pin else { return CURLE_SSL_CERTPROBLEM }
            let context = OpaquePointer(sslContext)
            SSL_CTX_set_ex_data(context, 0, pin)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER) { _, store in
                CertificatePin.verify(store) ? 1 : 0
            }
            return CURLE_OK
        }
    }

    /// OpenSSL's verify callback: depth 0 decides by fingerprint.
    private static func verify(_ store: OpaquePointer?) -> Bool {
        guard let store else { return false }
        guard X509_STORE_CTX_get_error_depth(store) == 0 else { return true }
        guard let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
              let context = SSL_get_SSL_CTX(OpaquePointer(ssl)),
              let raw = SSL_CTX_get_ex_data(context, 0),
              let certificate = X509_STORE_CTX_get_current_cert(store) else { return false }
        let pin = Unmanaged<CertificatePin>.fromOpaque(raw).takeUnretainedValue()
        let presented = fingerprint(certificate)
        guard presented == pin.expected else {
            pin.presentedFingerprint.withLock { $0 = presented }
            return false
        }
        X509_STORE_CTX_set_error(store, X509_V_OK)
        return true
    }

    /// SHA-256 of the certificate's DER form, `AB:CD:…`.
    static func fingerprint(_ certificate: OpaquePointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return "" }
        return digest.prefix(Int(length)).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }.joined(separator: ":")
    }

    /// A fingerprint as a person types it (any case, with or without colons, an
    /// optional `sha256:` prefix) in the `AB:CD:…` form; nil unless it is 32 bytes of hex.
    static func normalize(_ text: String) -> String? {
        var digits = Substring(text.filter { !$0.isWhitespace })
        if digits.lowercased().hasPrefix("sha256:") { digits = digits.dropFirst("sha256:".count) }
        let hex = Array(digits.filter { $0 != ":" }.uppercased())
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        return stride(from: 0, to: 64, by: 2).map { String(hex[$0...$0 + 1]) }.joined(separator: ":")
    }
}
