@testable import SetteeHTTP
import Synchronization
import Testing

/// `TLSTransport` moves a TLS 1.3 AES-GCM session from OpenSSL (`OpenSSLTransport`) to the
/// server's own record layer (`TLS13RecordTransport`) after the handshake, unless the
/// listener keeps OpenSSL's (`[ssl] record_layer = openssl`): then no session ever leaves
/// OpenSSL, and everything the records carry still arrives whole.
@Suite struct TLSTransportTests {
    /// A body that spans several 16 KiB records each way.
    private static let largeBody = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 7) }

    /// With OpenSSL's record layer, the AES-GCM suites the server's own would take stay
    /// with OpenSSL too: keep-alive requests, bodies of many records, and a client
    /// KeyUpdate that asks for one back (answered by OpenSSL, RFC 8446 §4.6.3) are served,
    /// and no session moved.
    @Test(arguments: ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"])
    func opensslRecordLayerKeepsEverySessionWithOpenSSL(suite: String) async throws {
        try await TLSTestServer.run(recordLayer: .openssl) { port, context in
            let client = try await TLSTestClient(port: port, suites: suite)
            #expect(client.version == "TLSv1.3")
            #expect(try await client.request("GET", "/hello").body == Array("hello".utf8))
            await client.updateKeys(requestingServerUpdate: true)
            #expect(try await client.request("POST", "/echo", body: Self.largeBody).body == Self.largeBody)
            #expect(await client.keyUpdatesReceived == 1)
            #expect(try await client.request("GET", "/hello", headers: "Connection: close\r\n").status == 200)
            #expect(await client.readUntilClosed() == .closeNotify)
            #expect(context.sessionsOnOwnRecords.load(ordering: .relaxed) == 0)
        }
    }

    /// By default (and with `settee` named), an AES-GCM session moves to the server's own
    /// record layer, one move per session; ChaCha20 stays with OpenSSL.
    @Test(arguments: [(nil, "TLS_AES_128_GCM_SHA256", 1), (TLSRecordLayer.settee, "TLS_AES_256_GCM_SHA384", 1),
                      (nil, "TLS_CHACHA20_POLY1305_SHA256", 0)])
    func settingRecordLayerMovesAESGCMSessions(layer: TLSRecordLayer?, suite: String, moved: Int) async throws {
        try await TLSTestServer.run(recordLayer: layer) { port, context in
            let client = try await TLSTestClient(port: port, suites: suite)
            #expect(try await client.request("POST", "/echo", body: Self.largeBody).body == Self.largeBody)
            #expect(try await client.request("GET", "/hello", headers: "Connection: close\r\n").status == 200)
            #expect(await client.readUntilClosed() == .closeNotify)
            #expect(context.sessionsOnOwnRecords.load(ordering: .relaxed) == moved)
        }
    }

    /// `[ssl] record_layer`'s values, as the settings table checks them.
    @Test func recordLayerNamesItsValues() {
        #expect(TLSRecordLayer(rawValue: "openssl") == .openssl)
        #expect(TLSRecordLayer(rawValue: "settee") == .settee)
        #expect(TLSRecordLayer(rawValue: "OpenSSL") == nil)
        #expect(TLSRecordLayer.expectation == "settee or openssl")
    }
}
