internal import COpenSSL

/// A certificate for a server no authority knows: an ECDSA P-256 key and a
/// self-signed X.509 v3 certificate naming the host's names and addresses as
/// subject alternative names, so a client that pins or trusts it can also check
/// the name it dialled. Pinning (by fingerprint) is how peers trust it.
public enum SelfSignedCertificate {
    /// PEM text of a new certificate and its private key.
    /// - Parameters:
    ///   - commonName: the subject's CN (the host name).
    ///   - dnsNames: `DNS:` alternative names.
    ///   - ipAddresses: `IP:` alternative names (IPv4 or IPv6 literals).
    ///   - days: validity from an hour ago (clock skew between peers).
    public static func generate(commonName: String, dnsNames: [String], ipAddresses: [String],
                                days: Int = 3650) throws(TLSError) -> (certificate: String, key: String) {
        guard let key = settee_evp_ec_gen("P-256") else { throw TLSError.openSSL("EC key generation") }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw TLSError.openSSL("X509_new") }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        var serial: UInt64 = 0
        guard RAND_bytes(&serial, Int32(MemoryLayout<UInt64>.size)) == 1 else { throw TLSError.openSSL("RAND_bytes") }
        ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial >> 1)  // positive
        X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "Settee", -1, -1, 0)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, String(commonName.prefix(64)), -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        let alternatives = dnsNames.map { "DNS:" + $0 } + ipAddresses.map { "IP:" + $0 }
        try addExtension(NID_basic_constraints, "critical,CA:FALSE", to: certificate)
        try addExtension(NID_key_usage, "critical,digitalSignature", to: certificate)
        try addExtension(NID_ext_key_usage, "serverAuth,clientAuth", to: certificate)
        if !alternatives.isEmpty {
            try addExtension(NID_subject_alt_name, alternatives.joined(separator: ","), to: certificate)
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSError.openSSL("X509_sign") }
        let certificatePEM = try pem { PEM_write_bio_X509($0, certificate) }
        let keyPEM = try pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        return (certificatePEM, keyPEM)
    }

    private static func addExtension(_ nid: Int32, _ value: String, to certificate: OpaquePointer) throws(TLSError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw TLSError.openSSL("certificate extension \(value)")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(certificate, ext, -1) == 1 else { throw TLSError.openSSL("X509_add_ext") }
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) throws(TLSError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw TLSError.openSSL("PEM write") }
        var data: UnsafeMutablePointer<CChar>?
        let length = settee_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw TLSError.openSSL("PEM write") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
