@testable import SetteeHTTP
import SetteeTestSupport
import Testing

/// `TLS13Records` against itself: one side seals with the keys the other opens with, as a
/// client and the server do after a handshake. RFC 8446 §5 (records), §4.6.3 (KeyUpdate).
@Suite struct TLS13RecordsTests {
    private static let clientSecret = (0..<32).map { UInt8($0) }
    private static let serverSecret = (0..<32).map { UInt8(200 - $0) }

    private func key(_ secret: [UInt8], sealing: Bool, suite: TLS13TrafficKey.Suite = .aes128GCMSHA256) throws
        -> TLS13TrafficKey {
        try #require(TLS13TrafficKey(secret: secret, suite: suite, sealing: sealing))
    }

    /// A server and the client it talks to.
    private func pair(suite: TLS13TrafficKey.Suite = .aes128GCMSHA256, serverRecordsPerKey: UInt64 = 1 << 24) throws
        -> (server: TLS13Records, client: TLS13Records) {
        let server = TLS13Records(readKey: try key(Self.clientSecret, sealing: false, suite: suite),
                                  writeKey: try key(Self.serverSecret, sealing: true, suite: suite),
                                  recordsPerKey: serverRecordsPerKey)
        let client = TLS13Records(readKey: try key(Self.serverSecret, sealing: false, suite: suite),
                                  writeKey: try key(Self.clientSecret, sealing: true, suite: suite))
        return (server, client)
    }

    /// Everything `records` opens from `wire`, read `maxBytes` at a time.
    private func openAll(_ records: TLS13Records, _ wire: [UInt8], maxBytes: Int = 64 * 1024) throws -> [UInt8] {
        records.receive(wire)
        var plaintext: [UInt8] = []
        while case .data(let bytes) = try records.open(maxBytes: maxBytes) { plaintext += bytes }
        return plaintext
    }

    @Test(arguments: [1, 100, 16 * 1024, 16 * 1024 + 1, 100_000])
    func whatOneSideSealsTheOtherOpens(size: Int) throws {
        for suite in [TLS13TrafficKey.Suite.aes128GCMSHA256, .aes256GCMSHA384] {
            let (server, client) = try pair(suite: suite)
            var random = SplitMix(state: UInt64(size))
            let message = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            let wire = try #require(message.withUnsafeBytes { server.seal($0) })
            // One record per 16 KiB, each 22 bytes longer than its content (header, type, tag).
            let records = (size + 16 * 1024 - 1) / (16 * 1024)
            #expect(wire.count == size + 22 * records)
            #expect(try openAll(client, wire) == message)
            let again = try #require(message.withUnsafeBytes { server.seal($0) })
            #expect(try openAll(client, again, maxBytes: 1000) == message)
        }
    }

    /// Each record takes the next sequence number: the same plaintext never seals the
    /// same way twice, and a record replayed or taken out of order does not open.
    @Test func replayedOrReorderedRecordsDoNotOpen() throws {
        let (server, client) = try pair()
        let message = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        let first = try #require(message.withUnsafeBytes { server.seal($0) })
        let second = try #require(message.withUnsafeBytes { server.seal($0) })
        #expect(first != second)
        #expect(try openAll(client, first) == message)
        #expect(throws: TLS13Records.Failure.self) { try openAll(client, first) }

        let (otherServer, otherClient) = try pair()
        _ = try #require(message.withUnsafeBytes { otherServer.seal($0) })
        let later = try #require(message.withUnsafeBytes { otherServer.seal($0) })
        #expect(throws: TLS13Records.Failure.self) { try openAll(otherClient, later) }
    }

    /// Past its records-per-key limit the sealing side sends a KeyUpdate and moves to the
    /// next secret; the opening side follows it, and every byte still arrives.
    @Test func aSideRekeysAfterItsLimitAndThePeerFollows() throws {
        let (server, client) = try pair(serverRecordsPerKey: 3)
        var wire: [UInt8] = []
        var sent: [UInt8] = []
        for index in 0..<10 {
            let message = Array("record \(index)".utf8)
            sent += message
            wire += try #require(message.withUnsafeBytes { server.seal($0) })
        }
        // Ten data records and a KeyUpdate (27 bytes on the wire) at the 4th, 7th and 10th.
        #expect(wire.count == sent.count + 22 * 10 + 3 * 27)
        #expect(try openAll(client, wire) == sent)
    }

    /// Records of the given content types and contents, sealed by the client's side in order.
    private func clientRecords(_ client: TLS13Records, _ pieces: [(UInt8, [UInt8])]) throws -> [UInt8] {
        var wire: [UInt8] = []
        for (type, content) in pieces {
            wire += try #require(content.withUnsafeBytes { client.sealRecords([($0, type)]) })
        }
        return wire
    }

    /// The server's record layer after the client moved to its next key.
    private func clientAfterKeyUpdate() throws -> TLS13Records {
        let next = try #require(try key(Self.clientSecret, sealing: true).updated(sealing: true))
        return TLS13Records(readKey: try key(Self.serverSecret, sealing: false), writeKey: next)
    }

    /// A KeyUpdate may come fragmented over several records (RFC 8446 §5.1: handshake
    /// messages may be fragmented; a key change must only end its record): the server
    /// reassembles it, moves to the next key, and reads what the client sends under it.
    @Test(arguments: [[2, 3], [1, 1, 1, 1, 1], [4, 1]])
    func aFragmentedKeyUpdateIsReassembled(sizes: [Int]) throws {
        let (server, client) = try pair()
        let keyUpdate: [UInt8] = [24, 0, 0, 1, 0]
        var offset = 0
        var pieces: [(UInt8, [UInt8])] = []
        for size in sizes {
            pieces.append((TLS13Records.ContentType.handshake, Array(keyUpdate[offset..<offset + size])))
            offset += size
        }
        let message = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        let wire = try clientRecords(client, pieces)
            + (try #require(message.withUnsafeBytes { try? clientAfterKeyUpdate().seal($0) }))
        #expect(try openAll(server, wire) == message)
    }

    /// A KeyUpdate that asks for one is answered by itself, before any data (as OpenSSL
    /// does; §4.6.3 requires it before the next data record at the latest), and only once.
    @Test func anOwedKeyUpdateIsSealedOnItsOwn() throws {
        let (server, client) = try pair()
        #expect(server.sealOwedKeyUpdate() == nil)
        let request: [UInt8] = [24, 0, 0, 1, 1]  // update_requested
        let wire = try clientRecords(client, [(TLS13Records.ContentType.handshake, request)])
        #expect(try openAll(server, wire).isEmpty)
        let keyUpdate = try #require(server.sealOwedKeyUpdate())
        #expect(server.sealOwedKeyUpdate() == nil)
        let message = Array("after".utf8)
        let data = try #require(message.withUnsafeBytes { server.seal($0) })
        // The client follows the server's KeyUpdate, then opens data under the next key.
        #expect(try openAll(client, keyUpdate + data) == message)
    }

    /// What §5.1 forbids ends the connection with unexpected_message (10), as OpenSSL
    /// answers: a KeyUpdate not at the end of its record, another record type between a
    /// handshake message's fragments, an empty handshake record, an empty alert record.
    @Test(arguments: [
        [(UInt8(22), [24, 0, 0, 1, 0, 24] as [UInt8])],
        [(UInt8(22), [24, 0] as [UInt8]), (UInt8(23), Array("x".utf8))],
        [(UInt8(22), [] as [UInt8])],
        [(UInt8(21), [] as [UInt8])],
    ])
    func recordsTheRFCForbidsEndWithUnexpectedMessage(pieces: [(UInt8, [UInt8])]) throws {
        let (server, client) = try pair()
        let wire = try clientRecords(client, pieces)
        #expect { try openAll(server, wire) } throws: { error in
            (error as? TLS13Records.Failure)?.alert == TLS13Records.Alert.unexpectedMessage
        }
    }

    /// Padding counts: a TLSInnerPlaintext (content, type, zeros) over 2^14 + 1 bytes is
    /// record_overflow (22) even when its content alone would fit (§5.4).
    @Test func paddingCountsTowardsTheRecordLimit() throws {
        let data = [UInt8](repeating: 0x41, count: 16 * 1024 - 8)
        // Sealed with type 0 after the real type and the padding: the zeros are padding.
        for (padding, fits) in [(7, true), (8, false)] {
            let (server, client) = try pair()
            let wire = try clientRecords(client, [(0, data + [TLS13Records.ContentType.applicationData]
                                                   + [UInt8](repeating: 0, count: padding))])
            if fits {
                #expect(try openAll(server, wire) == data)
            } else {
                #expect { try openAll(server, wire) } throws: { error in
                    (error as? TLS13Records.Failure)?.alert == TLS13Records.Alert.recordOverflow
                }
            }
        }
    }

    /// Arbitrary bytes after the handshake end the connection or wait for more; they
    /// never open, and never crash the server.
    @Test func arbitraryBytesNeverOpen() throws {
        var random = SplitMix(state: 23)
        for _ in 0..<2000 {
            let (server, _) = try pair()
            let length = Int.random(in: 0...64, using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            if length >= 5, Bool.random(using: &random) { bytes[0] = 23 }  // past the type check, often
            server.receive(bytes)
            do {
                let opened = try server.open(maxBytes: 1 << 16)
                guard case .needsMore = opened else {
                    Issue.record("\(bytes) opened as \(opened)")
                    return
                }
            } catch {}
        }
    }
}
