import Settee
import Testing

@Suite struct ListenerTests {
    /// A peer's write over HTTP lands in the program's open database and wakes its change feed.
    @Test func aPeersWriteOverHTTPWakesTheProgramsFeed() async throws {
        var options = DataDirectory.Options()
        options.admins = ["admin": "secret"]
        try await withDataDirectory(options: options) { server in
            let inbox = try await server.database("inbox")
            let listener = try await server.startListener()
            #expect(listener.port > 0 && !listener.isPublished)
            let feed = inbox.changes(since: .now)
            let watcher = Task {
                var iterator = feed.makeAsyncIterator()
                return try await iterator.next()?.id
            }
            try await withDataDirectory { peer in
                let outbox = try await peer.database("outbox")
                _ = try await outbox.save(Note(text: "over the wire"), id: "sent")
                let push = Replicator(outbox, peer: .url("http://admin:secret@127.0.0.1:\(listener.port)/inbox"),
                                      direction: .push)
                push.start()
                guard case .stopped(_, nil) = await push.finished() else {
                    Issue.record("push failed: \(push.status)")
                    return
                }
            }
            #expect(try await within(.seconds(10)) { try await watcher.value } == "sent")
            #expect(try await inbox.document(Note.self, id: "sent")?.value.text == "over the wire")
            await listener.stop()
        }
    }

    /// A peer without credentials is nobody: new databases admit admins only, so its
    /// push stops with an error and writes nothing.
    @Test func anAnonymousPeerIsNotAnAdmin() async throws {
        var options = DataDirectory.Options()
        options.admins = ["admin": "secret"]
        try await withDataDirectory(options: options) { server in
            let inbox = try await server.database("inbox")
            let listener = try await server.startListener()
            try await withDataDirectory { peer in
                let outbox = try await peer.database("outbox")
                _ = try await outbox.save(Note(text: "sneaky"), id: "x")
                let push = Replicator(outbox, peer: .url("http://127.0.0.1:\(listener.port)/inbox"), direction: .push)
                push.start()
                let status = await push.finished()
                guard case .stopped(_, let error) = status else {
                    Issue.record("not stopped: \(status)")
                    return
                }
                #expect(error != nil)
            }
            #expect(try await inbox.info().documentCount == 0)
            await listener.stop()
        }
    }

    /// Pushes `outbox`'s documents to `url` pinned to `pin`; the push's final status.
    static func push(from peer: DataDirectory, to url: String, pin: String?) async throws -> ReplicatorStatus {
        let outbox = try await peer.database("outbox")
        _ = try await outbox.save(Note(text: "over TLS"), id: "sealed")
        let push = Replicator(outbox, peer: .url(url, pin: pin), direction: .push)
        push.start()
        return await push.finished()
    }

    /// HTTPS with the directory's own self-signed certificate: a peer pinned to the
    /// fingerprint the listener tells pushes through it; one pinned to another is
    /// refused and writes nothing; the certificate outlives the listener (same fingerprint).
    @Test func anHTTPSListenerIsReachedPinnedToItsFingerprint() async throws {
        var options = DataDirectory.Options()
        options.admins = ["admin": "secret"]
        try await withDataDirectory(options: options) { server in
            let inbox = try await server.database("inbox")
            let listener = try await server.startListener(tls: .selfSigned)
            let fingerprint = try #require(listener.tlsFingerprint)
            #expect(listener.usesTLS && listener.url == "https://127.0.0.1:\(listener.port)/")
            // 32 bytes as colon-separated upper-case hex pairs, as `settee serve` prints it.
            #expect(fingerprint.count == 95 && fingerprint.split(separator: ":").count == 32)
            let url = "https://admin:secret@127.0.0.1:\(listener.port)/inbox"
            let wrongPin = String(fingerprint.reversed())
            let refused = try await withDataDirectory { try await Self.push(from: $0, to: url, pin: wrongPin) }
            guard case .stopped(_, let refusal) = refused else { throw TimedOut() }
            #expect(refusal != nil, "a push pinned to another certificate succeeded")
            #expect(try await inbox.info().documentCount == 0)
            let pinned = try await withDataDirectory { try await Self.push(from: $0, to: url, pin: fingerprint) }
            guard case .stopped(_, let failure) = pinned else { throw TimedOut() }
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(try await inbox.document(Note.self, id: "sealed")?.value.text == "over TLS")
            // Plain HTTP on that port is not served.
            let plain = try await withDataDirectory {
                try await Self.push(from: $0, to: "http://admin:secret@127.0.0.1:\(listener.port)/inbox", pin: nil)
            }
            guard case .stopped(_, let plainFailure) = plain else { throw TimedOut() }
            #expect(plainFailure != nil)
            await listener.stop()
            let again = try await server.startListener(tls: .selfSigned)
            #expect(again.tlsFingerprint == fingerprint)
            await again.stop()
        }
    }

    /// `recordLayer` is `[ssl] record_layer`: the HTTPS server takes it (Settee's own by
    /// default, as `settee serve`), a peer pushes through an OpenSSL-only listener, and a
    /// plain-HTTP listener has none.
    @Test func anHTTPSListenerTakesTheRecordLayerAskedFor() async throws {
        var options = DataDirectory.Options()
        options.admins = ["admin": "secret"]
        try await withDataDirectory(options: options) { server in
            let inbox = try await server.database("inbox")
            let byDefault = try await server.startListener(tls: .selfSigned)
            #expect(byDefault.recordLayer == .settee)
            await byDefault.stop()
            let listener = try await server.startListener(tls: .selfSigned, recordLayer: .openssl)
            #expect(listener.recordLayer == .openssl)
            let url = "https://admin:secret@127.0.0.1:\(listener.port)/inbox"
            let pushed = try await withDataDirectory { try await Self.push(from: $0, to: url, pin: listener.tlsFingerprint) }
            guard case .stopped(_, let failure) = pushed else { throw TimedOut() }
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(try await inbox.document(Note.self, id: "sealed")?.value.text == "over TLS")
            await listener.stop()
            let plain = try await server.startListener(recordLayer: .openssl)
            #expect(plain.recordLayer == nil)
            await plain.stop()
        }
    }

    /// Certificate and key files: another directory's generated pair serves with the
    /// same fingerprint; a missing file is a listener error, and nothing listens.
    @Test func anHTTPSListenerServesGivenFilesAndRefusesMissingOnes() async throws {
        try await withDataDirectory { first in
            let original = try await first.startListener(tls: .selfSigned)
            let certificate = first.path + "/tls/certificate.pem", key = first.path + "/tls/key.pem"
            try await withDataDirectory { second in
                let copy = try await second.startListener(tls: .files(certificate: certificate, key: key))
                #expect(copy.tlsFingerprint == original.tlsFingerprint && copy.port != original.port)
                await copy.stop()
                do {
                    _ = try await second.startListener(tls: .files(certificate: second.path + "/none.pem", key: key))
                    Issue.record("a listener started with a missing certificate")
                } catch {
                    guard case SetteeError.listener(let reason) = error else { throw error }
                    #expect(reason.contains("TLS"), "\(reason)")
                }
            }
            await original.stop()
        }
    }
}
