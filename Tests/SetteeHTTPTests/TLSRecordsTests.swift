import Foundation
import Logging
@testable import SetteeHTTP
import SetteeTestSupport
import Synchronization
import Testing

/// The server's own TLS 1.3 record layer (`TLS13Records`), which takes over from OpenSSL
/// after an AES-GCM handshake: requests and responses across many records, the client's
/// KeyUpdates, and records a client may not send. RFC 8446 §4.6.3, §5, §6.
@Suite struct TLSRecordsTests {
    /// A body that spans several 16 KiB records each way, not repeating within a record.
    private static let largeBody = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }

    /// AES-GCM sessions move to the records, with nothing on the wire to show it (no
    /// KeyUpdate: the server's sequence numbers go on after OpenSSL's session tickets);
    /// ChaCha20, TLS 1.2 and clients that asked for 512-byte records (which the records
    /// never make) stay with OpenSSL. Either way, keep-alive requests and bodies of many
    /// records arrive whole in both directions.
    @Test(arguments: [("TLS_AES_128_GCM_SHA256", false, false, 1), ("TLS_AES_256_GCM_SHA384", false, false, 1),
                      ("TLS_CHACHA20_POLY1305_SHA256", false, false, 0), ("", true, false, 0),
                      ("TLS_AES_128_GCM_SHA256", false, true, 0)])
    func requestsAndLargeBodiesCrossEverySuite(suite: String, tls12: Bool, smallRecords: Bool,
                                               ownRecords: Int) async throws {
        try await TLSTestServer.run { port, context in
            let client = try await TLSTestClient(port: port, suites: suite, tls12: tls12, smallRecords: smallRecords)
            #expect(client.version == (tls12 ? "TLSv1.2" : "TLSv1.3"))
            for _ in 0..<3 {
                let hello = try await client.request("GET", "/hello")
                #expect(hello.status == 200)
                #expect(hello.body == Array("hello".utf8))
            }
            let echo = try await client.request("POST", "/echo", body: Self.largeBody)
            #expect(echo.status == 200)
            #expect(echo.body == Self.largeBody)
            #expect(try await client.request("GET", "/hello").body == Array("hello".utf8))
            #expect(context.sessionsOnOwnRecords.load(ordering: .relaxed) == ownRecords)
            #expect(await client.keyUpdatesReceived == 0)
        }
    }

    /// A KeyUpdate from the client moves the server's reading key; one that asks for an
    /// update moves its sending key too, announced by a KeyUpdate of its own (§4.6.3).
    @Test func clientKeyUpdatesAreFollowed() async throws {
        try await TLSTestServer.run { port, context in
            let client = try await TLSTestClient(port: port)
            #expect(try await client.request("GET", "/hello").status == 200)
            #expect(context.sessionsOnOwnRecords.load(ordering: .relaxed) == 1)
            #expect(await client.keyUpdatesReceived == 0)

            await client.updateKeys(requestingServerUpdate: true)
            #expect(try await client.request("GET", "/hello").body == Array("hello".utf8))
            #expect(await client.keyUpdatesReceived == 1)

            await client.updateKeys(requestingServerUpdate: false)
            #expect(try await client.request("POST", "/echo", body: Self.largeBody).body == Self.largeBody)
            #expect(await client.keyUpdatesReceived == 1)
        }
    }

    /// A record altered in flight fails authentication: the server answers bad_record_mac
    /// (alert 20) and closes that connection only; the next client is served.
    @Test func alteredRecordEndsOnlyItsConnection() async throws {
        try await TLSTestServer.run { port, _ in
            let client = try await TLSTestClient(port: port)
            #expect(try await client.request("GET", "/hello").status == 200)
            var records = try await client.sealedRecords(Array("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            records[records.count - 20] ^= 0x01
            await client.sendRaw(records)
            #expect(await client.readUntilClosed() == .closed)
            #expect(await client.alertsReceived == [20])

            let next = try await TLSTestClient(port: port)
            #expect(try await next.request("GET", "/hello").body == Array("hello".utf8))
        }
    }

    /// Records no client may send after the handshake end the connection at once: an
    /// unprotected handshake record (unexpected_message, 10), and a length over 2^14 + 256
    /// (record_overflow, 22) — refused from its header, without waiting for its body.
    @Test(arguments: [([22, 3, 3, 0, 4, 1, 0, 0, 0] as [UInt8], UInt8(10)), ([23, 3, 3, 0x48, 0x01], UInt8(22))])
    func recordsAClientMayNotSendEndTheConnection(record: [UInt8], alert: UInt8) async throws {
        try await TLSTestServer.run { port, _ in
            let client = try await TLSTestClient(port: port)
            #expect(try await client.request("GET", "/hello").status == 200)
            await client.sendRaw(record)
            #expect(await client.readUntilClosed() == .closed)
            #expect(await client.alertsReceived == [alert])
        }
    }

    /// The server sends close_notify before it closes its side (`Connection: close`, §6.1);
    /// the client's close_notify ends the connection at once.
    @Test func closeNotifyBothWays() async throws {
        try await TLSTestServer.run { port, _ in
            let client = try await TLSTestClient(port: port)
            #expect(try await client.request("GET", "/hello", headers: "Connection: close\r\n").status == 200)
            #expect(await client.readUntilClosed() == .closeNotify)

            let other = try await TLSTestClient(port: port)
            #expect(try await other.request("GET", "/hello").status == 200)
            await other.closeNotify()
            #expect(await other.readUntilClosed() != .timedOut)
        }
    }
}
