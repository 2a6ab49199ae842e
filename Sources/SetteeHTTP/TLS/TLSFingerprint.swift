internal import COpenSSL

/// Certificate fingerprints as people compare them: SHA-256 of the DER bytes,
/// uppercase hex pairs joined by colons (`openssl x509 -fingerprint -sha256`).
public enum TLSFingerprint {
    static func sha256(of certificate: OpaquePointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return "" }
        return format(Array(digest.prefix(Int(length))))
    }

    /// `AB:CD:…` for `bytes`.
    public static func format(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        return bytes.map { String(decoding: [hex[Int($0 >> 4)], hex[Int($0 & 15)]], as: UTF8.self) }
            .joined(separator: ":")
    }
}
