import Foundation
import Glibc
import SetteeTestSupport
import Testing

/// `[ssl]` with the real binary, checked with the tools people use: curl and openssl.
@Suite(.serialized) struct TLSServeTests {
    /// Runs a command line tool; its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A server with HTTPS on a free port (`[ssl]` in an ini file, plus `extra` lines).
    static func start(_ dir: TempDirectory, extra: String = "") throws -> (SetteeProcess, plain: Int, tls: Int) {
        let tlsPort = try FreePort.find()
        let ini = dir.appending("settee.ini")
        try "[ssl]\nenable = true\nport = \(tlsPort)\n\(extra)\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        // The fingerprint line comes after every listener's.
        #expect(settee.waitForOutput(containing: "SHA-256 fingerprint:"))
        let urls = try settee.waitUntilListening()
        #expect(urls.contains { $0.scheme == "https" && $0.port == tlsPort })
        return (settee, settee.baseURL.port ?? 0, tlsPort)
    }

    static func printedFingerprint(_ settee: SetteeProcess) throws -> String {
        let line = try #require(settee.output.split(separator: "\n").first { $0.contains("SHA-256 fingerprint:") })
        return String(line.split(separator: " ").last ?? "")
    }

    @Test func servesHTTPSWithAGeneratedCertificateItKeepsAcrossRestarts() throws {
        let dir = try TempDirectory(prefix: "tls")
        var (settee, _, tlsPort) = try Self.start(dir)
        defer { settee.kill(SIGKILL) }
        let certificate = dir.appending("data/tls/certificate.pem")
        let key = dir.appending("data/tls/key.pem")
        for file in [certificate, key] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file)")
        }
        let fingerprint = try Self.printedFingerprint(settee)
        let openssl = try Self.run("openssl", ["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256"])
        #expect(openssl.output.trimmingCharacters(in: .whitespacesAndNewlines) == "sha256 Fingerprint=" + fingerprint)

        // curl trusting the certificate by name (its SANs list localhost and 127.0.0.1).
        for host in ["localhost", "127.0.0.1"] {
            let welcome = try Self.run("curl", ["-sS", "--cacert", certificate, "https://\(host):\(tlsPort)/"])
            #expect(welcome.status == 0, "curl to \(host)")
            let json = try JSONSerialization.jsonObject(with: Data(welcome.output.utf8)) as? [String: Any]
            #expect((json?["settee"] as? [String: Any])?["tls_fingerprint"] as? String == fingerprint)
        }
        // ALPN: http/1.1, the only protocol spoken. TLS 1.1 is refused.
        let alpn = try Self.run("curl", ["-sS", "-k", "-o", "/dev/null", "-w", "%{http_version}", "https://127.0.0.1:\(tlsPort)/_up"])
        #expect(alpn.output == "1.1")
        let old = try Self.run("openssl", ["s_client", "-connect", "127.0.0.1:\(tlsPort)", "-tls1_1"])
        #expect(old.status != 0)

        let before = try String(contentsOfFile: certificate, encoding: .utf8)
        settee.kill(SIGTERM)
        #expect(try settee.waitForExit() == 0)
        (settee, _, _) = try Self.start(dir)
        #expect(try Self.printedFingerprint(settee) == fingerprint)
        #expect(try String(contentsOfFile: certificate, encoding: .utf8) == before)
    }

    @Test func stalledGarbageAndPlainClientsDoNotHoldUpOthers() throws {
        let dir = try TempDirectory(prefix: "tls-stall")
        let (settee, plainPort, tlsPort) = try Self.start(dir, extra: "handshake_timeout = 3")
        defer { settee.kill(SIGKILL) }
        // One client connects and says nothing; one sends plain HTTP to the TLS port;
        // one sends half a ClientHello and stops.
        let silent = try RawConnection(port: tlsPort)
        let plain = try RawConnection(port: tlsPort)
        try plain.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let truncated = try RawConnection(port: tlsPort)
        try truncated.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])
        // Meanwhile HTTPS and HTTP clients are served.
        for _ in 0..<3 {
            let ok = try Self.run("curl", ["-sS", "-k", "https://127.0.0.1:\(tlsPort)/_up"])
            #expect(ok.status == 0 && ok.output.contains("\"ok\""))
        }
        #expect(try Self.run("curl", ["-sS", "http://127.0.0.1:\(plainPort)/_up"]).output.contains("\"ok\""))
        #expect(try plain.isClosedByPeer(timeout: 10))
        #expect(!plain.received.contains("HTTP/1.1 200"))
        // TLS to the plain port is answered (with 400, it is not HTTP) or closed, never served.
        let tlsToPlain = try Self.run("curl", ["-sS", "-k", "https://127.0.0.1:\(plainPort)/_up"])
        #expect(tlsToPlain.status != 0)
        // The handshake limit ends the silent and the truncated ones.
        #expect(try silent.isClosedByPeer(timeout: 15))
        #expect(try truncated.isClosedByPeer(timeout: 15))
        #expect(try Self.run("curl", ["-sS", "-k", "https://127.0.0.1:\(tlsPort)/_up"]).status == 0)
    }

    @Test func httpsOnlyServesNoPlainHTTPAndRefusesToStartWithoutTLS() throws {
        let dir = try TempDirectory(prefix: "tls-only")
        let (settee, _, tlsPort) = try Self.start(dir, extra: "[settee]\nplain_http = false")
        defer { settee.kill(SIGKILL) }
        #expect(try settee.waitUntilListening().allSatisfy { $0.scheme == "https" })
        #expect(try Self.run("curl", ["-sS", "-k", "https://127.0.0.1:\(tlsPort)/_up"]).status == 0)

        let other = try TempDirectory(prefix: "tls-none")
        let ini = other.appending("settee.ini")
        try "[settee]\nplain_http = false\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let refused = try SetteeProcess(arguments: ["--port", "0", "--data-dir", other.path, "--config", ini])
        #expect(try refused.waitForExit() != 0)
        #expect(refused.output.contains("[ssl] enable = true"))
    }

    /// `[ssl] record_layer`: by default a TLS 1.3 AES-GCM session (curl's) moves to Settee's
    /// own record layer after the handshake; with `openssl` it stays with OpenSSL and is
    /// served the same. The server's debug log names the record layer of every session.
    @Test(arguments: [("", "settee"), ("record_layer = openssl", "openssl"), ("record_layer = settee", "settee")])
    func recordLayerSettingChoosesWhoCarriesTheRecords(setting: String, layer: String) throws {
        let dir = try TempDirectory(prefix: "tls-records")
        let (settee, _, tlsPort) = try Self.start(dir, extra: "\(setting)\n[log]\nlevel = debug")
        defer { settee.kill(SIGKILL) }
        for _ in 0..<2 {
            let ok = try Self.run("curl", ["-sS", "-k", "--tlsv1.3", "https://127.0.0.1:\(tlsPort)/_up"])
            #expect(ok.status == 0 && ok.output.contains("\"ok\""))
        }
        #expect(settee.waitForOutput(containing: "records=\(layer)"))
        #expect(!settee.output.contains("records=\(layer == "settee" ? "openssl" : "settee")"))
    }

    /// A record layer Settee does not have stops the start, naming the line and the choices.
    @Test func anUnknownRecordLayerIsRefusedAtStart() throws {
        let dir = try TempDirectory(prefix: "tls-records-bad")
        let ini = dir.appending("settee.ini")
        try "[ssl]\nenable = true\nport = \(try FreePort.find())\nrecord_layer = kernel\n"
            .write(toFile: ini, atomically: true, encoding: .utf8)
        let refused = try SetteeProcess(arguments: ["--port", "0", "--data-dir", dir.appending("data"), "--config", ini])
        #expect(try refused.waitForExit() != 0)
        #expect(refused.output.contains("settee.ini:4: invalid value \"kernel\": expected settee or openssl"))
    }
}
