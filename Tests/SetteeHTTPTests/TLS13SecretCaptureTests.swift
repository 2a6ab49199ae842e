import COpenSSL
@testable import SetteeHTTP
import Testing

/// `TLS13SecretCapture` reads the two first application traffic secrets out of the lines
/// OpenSSL's key log callback reports (NSS's key log format: label, client random, secret,
/// in hex), for the sessions it is attached to only, and zeroes them when detached.
@Suite struct TLS13SecretCaptureTests {
    private static let random = String(repeating: "ab", count: 32)
    private static let secret = (0..<32).map { UInt8($0 * 7 % 256) }
    private static let hex = secret.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()

    /// A server context with the key log callback installed, one session of it, and the
    /// callback itself (as OpenSSL calls it).
    private func withSession(_ body: (OpaquePointer, (String) -> Void) throws -> Void) throws {
        let context = try #require(SSL_CTX_new(TLS_server_method()))
        defer { SSL_CTX_free(context) }
        TLS13SecretCapture.installKeyLog(on: context)
        let callback = try #require(SSL_CTX_get_keylog_callback(context))
        let ssl = try #require(SSL_new(context))
        defer { SSL_free(ssl) }
        try body(ssl) { line in callback(ssl, line) }
    }

    @Test func theApplicationSecretsAreCaptured() throws {
        try withSession { ssl, log in
            let capture = TLS13SecretCapture()
            capture.attach(to: ssl)
            log("CLIENT_HANDSHAKE_TRAFFIC_SECRET \(Self.random) \(String(Self.hex.reversed()))")
            log("CLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.hex)")
            log("SERVER_TRAFFIC_SECRET_0 \(Self.random) \(Self.hex.uppercased())")
            log("EXPORTER_SECRET \(Self.random) \(String(Self.hex.reversed()))")
            #expect(capture.clientSecret == Self.secret)
            #expect(capture.serverSecret == Self.secret)
            capture.detach(from: ssl)
            #expect(capture.clientSecret.isEmpty && capture.serverSecret.isEmpty)
            // Detached: later lines reach no capture.
            log("CLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.hex)")
            #expect(capture.clientSecret.isEmpty)
        }
    }

    /// A line that is not whole pairs of hex digits, or longer than a digest, or a label
    /// that only starts like one of the two, is not taken.
    @Test(arguments: ["CLIENT_TRAFFIC_SECRET_0 \(random) \(hex)0", "CLIENT_TRAFFIC_SECRET_0 \(random) \(hex)zz",
                      "CLIENT_TRAFFIC_SECRET_0 \(random) \(hex + hex + hex)", "CLIENT_TRAFFIC_SECRET_0 \(hex)",
                      "CLIENT_TRAFFIC_SECRET_01 \(random) \(hex)", "CLIENT_TRAFFIC_SECRET_0"])
    func malformedLinesAreNotTaken(line: String) throws {
        try withSession { ssl, log in
            let capture = TLS13SecretCapture()
            capture.attach(to: ssl)
            log(line)
            #expect(capture.clientSecret.isEmpty)
            capture.detach(from: ssl)
        }
    }
}

