import Foundation
import Logging
@testable import SetteeHTTP
import SetteeTestSupport

/// An HTTPS-only server in process, for the TLS suites: a fresh self-signed certificate,
/// `TestResponder` behind it, bodies up to 1 MiB.
enum TLSTestServer {
    /// Starts one with `recordLayer` (and whatever `configure` sets), runs `body` with its
    /// port and TLS context, then stops it.
    static func run(
        recordLayer: TLSRecordLayer? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (Int, TLSContext) async throws -> Void
    ) async throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let pair = try SelfSignedCertificate.generate(commonName: "test", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        try pair.certificate.write(toFile: dir.appending("cert.pem"), atomically: true, encoding: .utf8)
        try pair.key.write(toFile: dir.appending("key.pem"), atomically: true, encoding: .utf8)
        var config = ServerConfiguration()
        config.port = 0
        config.servesPlainHTTP = false
        config.limits.maxBodyBytes = 1 << 20
        let context = try TLSContext(certificateFile: dir.appending("cert.pem"), keyFile: dir.appending("key.pem"))
        var listener = TLSListener(port: 0, context: context)
        if let recordLayer { listener.recordLayer = recordLayer }
        config.tls = listener
        configure(&config)
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: Logger(label: "test"))
        _ = try server.start()
        do {
            try await body(server.tlsPorts[0], context)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}
