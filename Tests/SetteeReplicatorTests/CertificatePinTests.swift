import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Testing

/// Replicating from a Settee that serves HTTPS with its generated self-signed
/// certificate: trusted by its pinned fingerprint only (issue 23 item 2).
@Suite(.serialized) struct CertificatePinTests {
    /// A settee with `[ssl]` on a free port: its HTTP base (for seeding) and its HTTPS base.
    final class TLSServer {
        let directory: TempDirectory
        let process: SetteeProcess
        let http: String
        let https: String
        let fingerprint: String

        init() throws {
            directory = try TempDirectory(prefix: "pin")
            let admin = SetteeProcess.defaultAdmin
            process = try SetteeProcess(
                arguments: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", directory.path],
                environment: ["SETTEE_ADMIN": "\(admin.name):\(admin.password)", "SETTEE_TLS_PORT": "0"])
            // The fingerprint line comes after every listener's.
            _ = process.waitForOutput(containing: "SHA-256 fingerprint:")
            let urls = try process.waitUntilListening()
            let plain = try #require(urls.first { $0.scheme == "http" })
            let secure = try #require(urls.first { $0.scheme == "https" })
            http = "http://\(admin.name):\(admin.password)@127.0.0.1:\(plain.port ?? 0)"
            https = "https://\(admin.name):\(admin.password)@127.0.0.1:\(secure.port ?? 0)"
            let line = try #require(process.output.split(separator: "\n").first { $0.contains("fingerprint:") })
            fingerprint = String(line.split(separator: " ").last ?? "")
        }

        deinit { process.kill(SIGKILL) }
    }

    static let wrongFingerprint = String(repeating: "AB:", count: 31) + "AB"

    private func seed(_ server: TLSServer, count: Int) async throws -> CurlSession {
        let session = CurlSession(maxConnections: 2)
        let endpoint = try RemoteEndpoint(url: server.http + "/src")
        let auth = try #require(endpoint.basicAuthorization)
        _ = try await session.send(RemoteRequest(method: "PUT", url: endpoint.database, headers: [auth]))
        let docs = JSONValue.array((0..<count).map { ["_id": .string("doc\($0)"), "n": .int($0)] })
        let answer = try await session.send(RemoteRequest(
            method: "POST", url: endpoint.database + "/_bulk_docs", headers: [auth, ("Content-Type", "application/json")],
            body: JSONWriter.serialize(["docs": docs])))
        #expect(answer.status == 201)
        return session
    }

    @Test func thePinnedCertificateIsTrustedAndNoOtherIs() async throws {
        let server = try TLSServer()
        #expect(server.fingerprint.count == 95)
        let session = try await seed(server, count: 25)
        let store = try ReplicatorStore()
        defer { store.remove() }

        // The right pin, typed in lower case without colons: every document arrives.
        let typed = server.fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
        let pinned = RemotePeer(endpoint: try RemoteEndpoint(url: server.https + "/src", pin: typed), session: session)
        var options = ReplicationOptions()
        options.createTarget = true
        let outcome = try await Replication(source: pinned, target: store.peer("copy"), options: options,
                                            logger: Logger(label: "test")).run()
        #expect(outcome.stats.docsWritten == 25)

        // Another fingerprint: refused before any request, naming both fingerprints, not retried as a network error.
        let impostor = RemotePeer(endpoint: try RemoteEndpoint(url: server.https + "/src", pin: Self.wrongFingerprint),
                                  session: session)
        await #expect(throws: ReplicationError.certificateMismatch(
            peer: impostor.displayName, expected: Self.wrongFingerprint, presented: server.fingerprint)) {
            _ = try await impostor.identity()
        }
        #expect(ReplicationError.certificateMismatch(peer: "p", expected: "a", presented: "b").isTransient == false)

        // No pin: the self-signed certificate fails ordinary verification, though the same
        // session holds live connections that the pin verified (they are never lent out).
        let unpinned = RemotePeer(endpoint: try RemoteEndpoint(url: server.https + "/src"), session: session)
        await #expect(throws: ReplicationError.self) { _ = try await unpinned.identity() }
    }

    @Test func theCommandLineTakesAPinAndNamesBothFingerprintsWhenItIsWrong() async throws {
        let server = try TLSServer()
        _ = try await seed(server, count: 5)
        let local = try TempDirectory(prefix: "pin-cli")
        let good = try runSetteeCLI(["replicate", server.https + "/src", "copy", "--create-target", "--data-dir", local.path,
                                     "--pin", server.fingerprint])
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.contains("5 written"))
        let bad = try runSetteeCLI(["replicate", server.https + "/src", "other", "--create-target", "--data-dir", local.path,
                                    "--pin", Self.wrongFingerprint])
        #expect(bad.status != 0)
        #expect(bad.output.contains(server.fingerprint) && bad.output.contains(Self.wrongFingerprint), "\(bad.output)")
        #expect(!bad.output.contains(SetteeProcess.defaultAdmin.password))
    }

    @Test func aMalformedPinIsRefusedUpFront() throws {
        #expect(throws: ReplicationError.self) { try RemoteEndpoint(url: "https://h:1/db", pin: "abc") }
        #expect(CertificatePin.normalize("sha256:" + String(repeating: "0f", count: 32))
            == Array(repeating: "0F", count: 32).joined(separator: ":"))
        #expect(CertificatePin.normalize(String(repeating: "zz", count: 32)) == nil)
    }

    @Test func aReplicationDocumentCarriesItsPinToEachHTTPSPeer() throws {
        let spec = try ReplicationSpec(["source": "https://a:1/x", "target": ["url": "https://b:2/y", "tls_fingerprint": "11"],
                                        "tls_fingerprint": "22"])
        #expect(spec.sourcePin == "22")
        #expect(spec.targetPin == "11")
        #expect(throws: ReplicationError.self) { try ReplicationSpec(["source": "a", "target": "b", "tls_fingerprint": 3]) }
    }
}
