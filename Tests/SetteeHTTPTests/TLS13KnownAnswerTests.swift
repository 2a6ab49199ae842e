import COpenSSL
@testable import SetteeHTTP
import Testing

/// RFC 8448 §3 (Example Handshake Traces for TLS 1.3, "Simple 1-RTT Handshake",
/// TLS_AES_128_GCM_SHA256): the write key and IV each side derives from its application
/// traffic secret (RFC 8446 §7.3), and the application data and close_notify records both
/// sides send, byte for byte, sealed and opened by each side. The server's data record is
/// its second under its first secret: its NewSessionTicket took sequence number 0, which
/// is how the records take over from OpenSSL (`TLS13SecretCapture` counts OpenSSL's records).
@Suite struct TLS13KnownAnswerTests {
    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    private static let clientSecret = bytes("9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5")
    private static let serverSecret = bytes("a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643")
    /// "derive write traffic keys for application data", each side's.
    private static let clientKey = bytes("17 42 2d da 59 6e d5 d9 ac d8 90 e3 c6 3f 50 51")
    private static let clientIV = bytes("5b 78 92 3d ee 08 57 90 33 e5 23 d9")
    private static let serverKey = bytes("9f 02 28 3b 6c 9c 07 ef c2 6b b9 f2 ac 92 e3 56")
    private static let serverIV = bytes("cf 78 2b 88 dd 83 54 9a ad f1 e9 84")
    private static let payload = Array(UInt8(0)...UInt8(0x31))
    private static let clientRecord = bytes("""
        17 03 03 00 43 a2 3f 70 54 b6 2c 94 d0 af fa fe 82 28 ba 55 cb ef ac ea 42 f9 14 aa
        66 bc ab 3f 2b 98 19 a8 a5 b4 6b 39 5b d5 4a 9a 20 44 1e 2b 62 97 4e 1f 5a 62 92 a2
        97 70 14 bd 1e 3d ea e6 3a ee bb 21 69 49 15 e4
        """)
    private static let serverRecord = bytes("""
        17 03 03 00 43 2e 93 7e 11 ef 4a c7 40 e5 38 ad 36 00 5f c4 a4 69 32 fc 32 25 d0 5f
        82 aa 1b 36 e3 0e fa f9 7d 90 e6 df fc 60 2d cb 50 1a 59 a8 fc c4 9c 4b f2 e5 f0 a2
        1c 00 47 c2 ab f3 32 54 0d d0 32 e1 67 c2 95 5d
        """)
    /// "send alert record": close_notify (payload 01 00), each side's next record.
    private static let clientAlert = bytes("17 03 03 00 13 c9 87 27 60 65 56 66 b7 4d 7f f1 15 3e fd 6d b6 d0 b0 e3")
    private static let serverAlert = bytes("17 03 03 00 13 b5 8f d6 71 66 eb f5 99 d2 47 20 cf be 7e fa 7a 88 64 a9")

    /// The server's side: it reads with the client's secret and writes with its own,
    /// after the NewSessionTicket.
    private func server() throws -> TLS13Records {
        let readKey = try #require(TLS13TrafficKey(secret: Self.clientSecret, suite: .aes128GCMSHA256, sealing: false))
        let writeKey = try #require(TLS13TrafficKey(secret: Self.serverSecret, suite: .aes128GCMSHA256, sealing: true,
                                                    sequence: 1))
        return TLS13Records(readKey: readKey, writeKey: writeKey)
    }

    /// The client's side: it writes first under its secret and reads past the ticket.
    private func client() throws -> TLS13Records {
        let readKey = try #require(TLS13TrafficKey(secret: Self.serverSecret, suite: .aes128GCMSHA256, sealing: false,
                                                   sequence: 1))
        let writeKey = try #require(TLS13TrafficKey(secret: Self.clientSecret, suite: .aes128GCMSHA256, sealing: true))
        return TLS13Records(readKey: readKey, writeKey: writeKey)
    }

    @Test func theServerSealsRFC8448sRecord() throws {
        let records = try server()
        #expect(Self.payload.withUnsafeBytes { records.seal($0) } == Self.serverRecord)
        #expect(records.sealAlert(TLS13Records.Alert.closeNotify) == Self.serverAlert)
    }

    @Test func theClientSealsRFC8448sRecord() throws {
        let records = try client()
        #expect(Self.payload.withUnsafeBytes { records.seal($0) } == Self.clientRecord)
        #expect(records.sealAlert(TLS13Records.Alert.closeNotify) == Self.clientAlert)
    }

    /// Each side opens the other's data record, then its close_notify.
    @Test(arguments: [(true, clientRecord + clientAlert), (false, serverRecord + serverAlert)])
    func eachSideOpensTheOthersRecords(isServer: Bool, wire: [UInt8]) throws {
        let records = try isServer ? server() : client()
        records.receive(wire)
        guard case .data(let opened) = try records.open(maxBytes: 1024) else {
            Issue.record("the data record did not open")
            return
        }
        #expect(opened == Self.payload)
        guard case .closed = try records.open(maxBytes: 1024) else {
            Issue.record("the close_notify record did not open as one")
            return
        }
    }

    /// The key and IV derived from each secret are RFC 8448's: the first record sealed
    /// under the secret is what AES-128-GCM makes with that key and that IV as the nonce
    /// (sequence number 0), the header as additional data (RFC 8446 §5.2, §5.3).
    @Test(arguments: [(clientSecret, clientKey, clientIV), (serverSecret, serverKey, serverIV)])
    func theWriteKeyAndIVAreRFC8448s(secret: [UInt8], key: [UInt8], iv: [UInt8]) throws {
        let trafficKey = try #require(TLS13TrafficKey(secret: secret, suite: .aes128GCMSHA256, sealing: true))
        let content = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        var sealed = [UInt8](repeating: 0, count: TLS13TrafficKey.headerLength + content.count + 1 + TLS13TrafficKey.tagLength)
        #expect(content.withUnsafeBytes { plain in sealed.withUnsafeMutableBytes { trafficKey.seal(plain, type: 23, into: $0) } })
        let header = Array(sealed.prefix(TLS13TrafficKey.headerLength))
        let expected = try #require(Self.aes128GCM(key: key, nonce: iv, additionalData: header, plaintext: content + [23]))
        #expect(sealed == header + expected)
    }

    /// The sequence number is the nonce: sealed as the first record under the secret (had
    /// the records started at 0 after OpenSSL's ticket), the bytes are not RFC 8448's.
    @Test func theSequenceNumberMakesTheRecord() throws {
        let writeKey = try #require(TLS13TrafficKey(secret: Self.serverSecret, suite: .aes128GCMSHA256, sealing: true))
        let readKey = try #require(TLS13TrafficKey(secret: Self.clientSecret, suite: .aes128GCMSHA256, sealing: false))
        let records = TLS13Records(readKey: readKey, writeKey: writeKey)
        let sealed = try #require(Self.payload.withUnsafeBytes { records.seal($0) })
        #expect(sealed.count == Self.serverRecord.count)
        #expect(sealed != Self.serverRecord)
    }

    /// AES-128-GCM straight from libcrypto, as the reference: ciphertext then the 16-byte tag.
    private static func aes128GCM(key: [UInt8], nonce: [UInt8], additionalData: [UInt8], plaintext: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        let sealed = out.withUnsafeMutableBufferPointer { out in
            EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1
                && EVP_EncryptUpdate(context, nil, &written, additionalData, Int32(additionalData.count)) == 1
                && EVP_EncryptUpdate(context, out.baseAddress, &written, plaintext, Int32(plaintext.count)) == 1
                && EVP_EncryptFinal_ex(context, out.baseAddress! + plaintext.count, &written) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, out.baseAddress! + plaintext.count) == 1
        }
        return sealed ? out : nil
    }
}
