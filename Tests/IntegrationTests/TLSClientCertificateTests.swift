import Foundation
import Glibc
import SetteeTestSupport
import Testing

/// `[ssl] verify_ssl_certificates` + `cacert_file` (CouchDB's names): a client certificate
/// that chains to the configured CA logs in the user its common name names (issue 23).
@Suite(.serialized) struct TLSClientCertificateTests {
    /// A CA, and a client certificate it signed for `cn` (plus one self-signed, for no CA of ours).
    static func makeCertificates(in dir: TempDirectory, cn: String) throws {
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=Test CA", "-keyout", dir.appending("ca.key"), "-out", dir.appending("ca.pem")],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=\(cn)",
             "-keyout", dir.appending("client.key"), "-out", dir.appending("client.csr")],
            ["x509", "-req", "-in", dir.appending("client.csr"), "-CA", dir.appending("ca.pem"), "-CAkey", dir.appending("ca.key"),
             "-CAcreateserial", "-days", "2", "-out", dir.appending("client.pem")],
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=\(cn)", "-keyout", dir.appending("stranger.key"), "-out", dir.appending("stranger.pem")],
        ]
        for step in steps {
            let result = try TLSServeTests.run("openssl", step)
            #expect(result.status == 0, "openssl \(step.joined(separator: " "))")
        }
    }

    /// A TLS server asking for client certificates from the CA made for `cn`'s (plus `extra` `[ssl]` lines).
    static func start(_ dir: TempDirectory, cn: String, extra: String = "") throws -> (SetteeProcess, plain: Int, tls: Int) {
        try makeCertificates(in: dir, cn: cn)
        return try TLSServeTests.start(dir, extra: "verify_ssl_certificates = true\ncacert_file = \(dir.appending("ca.pem"))\n" + extra)
    }

    @Test func aVerifiedClientCertificateLogsInTheUserItNames() throws {
        let dir = try TempDirectory(prefix: "tls-client")
        let (settee, plain, tlsPort) = try Self.start(dir, cn: "alice")
        defer { settee.kill(SIGKILL) }
        let admin = SetteeProcess.defaultAdmin
        let created = try TLSServeTests.run("curl", [
            "-sS", "-u", "\(admin.name):\(admin.password)", "-X", "PUT",
            "http://127.0.0.1:\(plain)/_users/org.couchdb.user:alice",
            "-d", #"{"name":"alice","type":"user","roles":["photographer"],"password":"unused-here"}"#])
        #expect(created.output.contains("\"ok\":true"), "\(created.output)")

        let session = "https://127.0.0.1:\(tlsPort)/_session"
        func userCtx(_ extra: [String]) throws -> [String: Any]? {
            let result = try TLSServeTests.run("curl", ["-sS", "-k"] + extra + [session])
            let json = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            return json?["userCtx"] as? [String: Any]
        }
        let withCertificate = try userCtx(["--cert", dir.appending("client.pem"), "--key", dir.appending("client.key")])
        #expect(withCertificate?["name"] as? String == "alice")
        #expect(withCertificate?["roles"] as? [String] == ["photographer"])
        // No certificate: anonymous (the certificate is optional unless fail_if_no_peer_cert).
        #expect(try userCtx([])?["name"] is NSNull)
        // A certificate no configured CA signed: the handshake fails, and the server serves on.
        let stranger = try TLSServeTests.run("curl", ["-sS", "-k", "--cert", dir.appending("stranger.pem"),
                                                      "--key", dir.appending("stranger.key"), session])
        #expect(!stranger.output.contains("alice"))
        #expect(try userCtx(["--cert", dir.appending("client.pem"), "--key", dir.appending("client.key")])?["name"] as? String == "alice")
        // Basic credentials sent with the certificate win: they are what the client asked for.
        let basic = try userCtx(["--cert", dir.appending("client.pem"), "--key", dir.appending("client.key"),
                                 "-u", "\(admin.name):\(admin.password)"])
        #expect(basic?["name"] as? String == admin.name)
    }

    @Test func failIfNoPeerCertRefusesClientsWithoutOne() throws {
        let dir = try TempDirectory(prefix: "tls-client-required")
        let (settee, _, tlsPort) = try Self.start(dir, cn: "bob", extra: "fail_if_no_peer_cert = true")
        defer { settee.kill(SIGKILL) }
        let url = "https://127.0.0.1:\(tlsPort)/_up"
        #expect(try TLSServeTests.run("curl", ["-sS", "-k", url]).status != 0)
        let ok = try TLSServeTests.run("curl", ["-sS", "-k", "--cert", dir.appending("client.pem"), "--key", dir.appending("client.key"), url])
        #expect(ok.status == 0 && ok.output.contains("\"ok\""))
    }

    @Test func verifyingClientsWithoutACAFileIsAStartUpError() throws {
        let dir = try TempDirectory(prefix: "tls-client-noca")
        let ini = dir.appending("settee.ini")
        try "[ssl]\nenable = true\nport = 0\nverify_ssl_certificates = true\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let refused = try SetteeProcess(arguments: ["--port", "0", "--data-dir", dir.appending("data"), "--config", ini])
        #expect(try refused.waitForExit() != 0)
        #expect(refused.output.contains("cacert_file"))
    }
}
