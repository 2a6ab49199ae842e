internal import COpenSSL

/// One direction of a TLS 1.3 connection's record protection (RFC 8446 §5.2, §5.3,
/// §7.1–7.3): the AES-GCM key and IV derived from an application traffic secret, and
/// the sequence number that makes each record's nonce. Every record it seals or opens
/// takes the next number, so no nonce is ever used twice under one key.
final class TLS13TrafficKey {
    /// The TLS 1.3 cipher suites this record layer speaks (the AES-GCM ones).
    enum Suite {
        case aes128GCMSHA256, aes256GCMSHA384

        /// The suite OpenSSL negotiated, when it is one of these.
        init?(protocolID: UInt16) {
            switch protocolID {
            case 0x1301: self = .aes128GCMSHA256
            case 0x1302: self = .aes256GCMSHA384
            default: return nil
            }
        }

        var keyLength: Int { self == .aes128GCMSHA256 ? 16 : 32 }
        var cipher: OpaquePointer? { self == .aes128GCMSHA256 ? Algorithms.aes128GCM : Algorithms.aes256GCM }
        var hmac: OpaquePointer? { self == .aes128GCMSHA256 ? Algorithms.hmacSHA256 : Algorithms.hmacSHA384 }
    }

    /// OpenSSL 3 looks an algorithm up by name in its providers (locks, string compares,
    /// allocations) each time `EVP_aes_128_gcm()` or `HMAC()` is used, and a key is made
    /// per direction per connection and per KeyUpdate: fetched once here instead
    /// (https://docs.openssl.org/3.0/man7/crypto/#explicit-fetching). Never freed: they
    /// live as long as the process. The HMACs are contexts with the digest set and no key,
    /// duplicated for each use.
    private enum Algorithms {
        nonisolated(unsafe) static let aes128GCM = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
        nonisolated(unsafe) static let aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
        nonisolated(unsafe) static let hmacSHA256 = hmacContext(digest: "SHA256")
        nonisolated(unsafe) static let hmacSHA384 = hmacContext(digest: "SHA384")

        private static func hmacContext(digest: String) -> OpaquePointer? {
            guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
            defer { EVP_MAC_free(mac) }  // the context holds its own reference
            guard let context = EVP_MAC_CTX_new(mac) else { return nil }
            let set = digest.withCString { name in
                var params = [OSSL_PARAM_construct_utf8_string("digest", UnsafeMutablePointer(mutating: name), 0),
                              OSSL_PARAM_construct_end()]
                return EVP_MAC_CTX_set_params(context, &params) == 1
            }
            guard set else {
                EVP_MAC_CTX_free(context)
                return nil
            }
            return context
        }
    }

    static let tagLength = 16
    static let headerLength = 5
    private static let nonceLength = 12

    private let suite: Suite
    private var secret: [UInt8]
    private var iv: [UInt8]
    private let context: OpaquePointer
    private(set) var sequence: UInt64 = 0

    /// - Parameters:
    ///   - sealing: true for the direction this side sends in.
    ///   - sequence: records already protected under this secret (by OpenSSL, before the
    ///     records took over).
    init?(secret: [UInt8], suite: Suite, sealing: Bool, sequence: UInt64 = 0) {
        guard var key = Self.expandLabel(secret, "key", length: suite.keyLength, suite: suite),
              let iv = Self.expandLabel(secret, "iv", length: Self.nonceLength, suite: suite),
              let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { key.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        guard EVP_CipherInit_ex(context, suite.cipher, nil, key, nil, sealing ? 1 : 0) == 1 else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.context = context
        self.suite = suite
        self.secret = secret
        self.iv = iv
        self.sequence = sequence
    }

    private init(copying other: TLS13TrafficKey, context: OpaquePointer) {
        self.context = context
        self.suite = other.suite
        self.secret = other.secret
        self.iv = other.iv
        self.sequence = other.sequence
    }

    /// A key at this one's secret and sequence with a cipher context of its own, made
    /// without deriving it again: the record fuzzer (fuzz/harnesses/tlsrecords.swift)
    /// derives its keys once and copies them for every input.
    func copy() -> TLS13TrafficKey? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_CIPHER_CTX_copy(context, self.context) == 1 else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        return TLS13TrafficKey(copying: self, context: context)
    }

    /// The key after a KeyUpdate: the next generation of the traffic secret (§7.2).
    func updated(sealing: Bool) -> TLS13TrafficKey? {
        guard var next = Self.expandLabel(secret, "traffic upd", length: secret.count, suite: suite) else { return nil }
        defer { next.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        return TLS13TrafficKey(secret: next, suite: suite, sealing: sealing)
    }

    /// Writes one record: the header, then `content` and its content type encrypted, then
    /// the tag. `out` holds exactly `Self.headerLength + content.count + 1 + Self.tagLength` bytes.
    func seal(_ content: UnsafeRawBufferPointer, type: UInt8, into out: UnsafeMutableRawBufferPointer) -> Bool {
        let length = content.count + 1 + Self.tagLength
        precondition(out.count == Self.headerLength + length)
        out[0] = 23  // application_data, as every TLS 1.3 record is on the wire
        out[1] = 3
        out[2] = 3
        out[3] = UInt8(length >> 8)
        out[4] = UInt8(length & 0xff)
        guard startRecord() else { return false }
        let base = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var typeByte = type
        var written: Int32 = 0
        guard EVP_EncryptUpdate(context, nil, &written, base, Int32(Self.headerLength)) == 1,
              EVP_EncryptUpdate(context, base + Self.headerLength, &written,
                                content.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(content.count)) == 1,
              EVP_EncryptUpdate(context, base + Self.headerLength + content.count, &written, &typeByte, 1) == 1,
              EVP_EncryptFinal_ex(context, base + Self.headerLength + content.count + 1, &written) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagLength),
                                  base + Self.headerLength + content.count + 1) == 1
        else { return false }
        return true
    }

    /// Decrypts a record's body (ciphertext then tag) into `out`, which holds
    /// `body.count - Self.tagLength` bytes; false when it does not authenticate.
    func open(header: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Bool {
        let ciphertextLength = body.count - Self.tagLength
        precondition(ciphertextLength >= 0 && out.count == ciphertextLength)
        guard startRecord() else { return false }
        let bodyBase = body.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        guard EVP_DecryptUpdate(context, nil, &written, header.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                Int32(header.count)) == 1,
              EVP_DecryptUpdate(context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &written,
                                bodyBase, Int32(ciphertextLength)) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagLength),
                                  UnsafeMutableRawPointer(mutating: bodyBase + ciphertextLength)) == 1
        else { return false }
        var scratch: (UInt64, UInt64) = (0, 0)  // GCM's final writes nothing, but wants a place to
        return withUnsafeMutableBytes(of: &scratch) { place in
            EVP_DecryptFinal_ex(context, place.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1
        }
    }

    /// Sets the next record's nonce (the IV XOR the sequence number) and takes the number.
    private func startRecord() -> Bool {
        guard sequence < UInt64.max else { return false }
        let number = sequence
        sequence += 1
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.nonceLength) { nonce in
            for index in 0..<Self.nonceLength { nonce[index] = iv[index] }
            for index in 0..<8 {
                nonce[Self.nonceLength - 1 - index] ^= UInt8(truncatingIfNeeded: number >> (8 * UInt64(index)))
            }
            return EVP_CipherInit_ex(context, nil, nil, nil, nonce.baseAddress, -1) == 1
        }
    }

    /// HKDF-Expand-Label(secret, label, "", length) (§7.1) for a length up to the
    /// hash's: then HKDF-Expand is the first block, HMAC(secret, HkdfLabel || 0x01).
    /// Nil when HMAC fails (the session then cannot go on).
    private static func expandLabel(_ secret: [UInt8], _ label: String, length: Int, suite: Suite) -> [UInt8]? {
        let fullLabel = Array("tls13 \(label)".utf8)
        let info = [UInt8(length >> 8), UInt8(length & 0xff), UInt8(fullLabel.count)] + fullLabel + [0, 1]
        var block = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var blockLength = 0
        defer { block.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        guard let context = EVP_MAC_CTX_dup(suite.hmac) else { return nil }
        defer { EVP_MAC_CTX_free(context) }
        guard EVP_MAC_init(context, secret, secret.count, nil) == 1,
              EVP_MAC_update(context, info, info.count) == 1,
              EVP_MAC_final(context, &block, &blockLength, block.count) == 1,
              blockLength >= length else { return nil }
        return Array(block[..<length])
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        iv.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}
