@testable import SetteeHTTP
import Testing

/// RFC 8448 §3 (Example Handshake Traces for TLS 1.3, "Simple 1-RTT Handshake",
/// TLS_AES_128_GCM_SHA256): the application traffic secrets it derives and the
/// application data records both sides send, byte for byte. The server's record is its
/// second under its first secret: its NewSessionTicket took sequence number 0, which is
/// how the records take over from OpenSSL (TLSTransport counts OpenSSL's records).
@Suite struct TLS13KnownAnswerTests {
    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    private static let clientSecret = bytes("9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5")
    private static let serverSecret = bytes("a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643")
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

    private func server() throws -> TLS13Records {
        let readKey = try #require(TLS13TrafficKey(secret: Self.clientSecret, suite: .aes128GCMSHA256, sealing: false))
        let writeKey = try #require(TLS13TrafficKey(secret: Self.serverSecret, suite: .aes128GCMSHA256, sealing: true,
                                                    sequence: 1))
        return TLS13Records(readKey: readKey, writeKey: writeKey)
    }

    @Test func theServerSealsRFC8448sRecord() throws {
        let records = try server()
        #expect(Self.payload.withUnsafeBytes { records.seal($0) } == Self.serverRecord)
    }

    @Test func theServerOpensRFC8448sClientRecord() throws {
        let records = try server()
        records.receive(Self.clientRecord)
        guard case .data(let opened) = try records.open(maxBytes: 1024) else {
            Issue.record("the client's record did not open")
            return
        }
        #expect(opened == Self.payload)
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
}
