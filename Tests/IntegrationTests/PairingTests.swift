import Foundation
import Glibc
import SetteeTestSupport
import Testing

/// `settee pair` against the real binary (issue 23): the printed URL and its QR code,
/// what the one-time user may and may not do, its uses, expiry and revocation, and
/// `settee replicate` taking the URL as it is.
@Suite(.serialized) struct PairingTests {
    /// Runs the settee binary with `arguments`; its exit status, stdout and stderr.
    static func settee(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = try SetteeProcess.binaryURL()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SETTEE_") }
        environment["SETTEE_ADMIN"] = nil
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    /// `curl` with `arguments`; the HTTP status it got (0 when none).
    static func status(_ arguments: [String]) throws -> Int {
        let result = try TLSServeTests.run("curl", ["-s", "-k", "-o", "/dev/null", "-w", "%{http_code}", "-m", "20"] + arguments)
        return Int(result.output) ?? 0
    }

    /// A TLS server with databases `photos` (holding `secret`), `other` and `outbox` (three documents).
    static func server(_ dir: TempDirectory) throws -> (SetteeProcess, admin: String, tlsPort: Int) {
        let (settee, plain, tlsPort) = try TLSServeTests.start(dir)
        let a = SetteeProcess.defaultAdmin
        let admin = "http://\(a.name):\(a.password)@127.0.0.1:\(plain)"
        for path in ["/photos", "/other", "/outbox"] { #expect(try status(["-X", "PUT", admin + path]) == 201) }
        #expect(try status(["-X", "PUT", admin + "/photos/secret", "-d", #"{"private":true}"#]) == 201)
        for i in 1...3 { #expect(try status(["-X", "PUT", admin + "/outbox/doc\(i)", "-d", #"{"n":\#(i)}"#]) == 201) }
        return (settee, admin, tlsPort)
    }

    /// `settee pair ARGUMENTS --server ADMIN --host 127.0.0.1`: the printed URL and the whole output.
    static func pair(_ admin: String, _ arguments: [String]) throws -> (url: String, output: String) {
        let result = try settee(["pair"] + arguments + ["--server", admin, "--host", "127.0.0.1"])
        #expect(result.status == 0, "\(result.errors)")
        let url = result.output.split(separator: "\n").first { $0.hasPrefix("https://") }.map(String.init) ?? ""
        return (url, result.output)
    }

    /// The QR code in `output` (half blocks, light modules drawn) decoded by zbarimg
    /// from an image of it, 4 pixels a module.
    static func decodeQRCode(_ output: String, in dir: TempDirectory) throws -> String {
        let blocks: [Character: (Bool, Bool)] = ["█": (true, true), "▀": (true, false), "▄": (false, true), " ": (false, false)]
        let lines = output.split(separator: "\n").filter { !$0.isEmpty && $0.allSatisfy { blocks[$0] != nil } }
        var rows: [[Bool]] = []
        for line in lines {
            rows.append(line.map { blocks[$0]!.0 })
            rows.append(line.map { blocks[$0]!.1 })
        }
        let scale = 4
        var pbm = "P1\n\((rows.first?.count ?? 0) * scale) \(rows.count * scale)\n"
        for row in rows {
            let pixels = row.flatMap { light in Array(repeating: light ? "0" : "1", count: scale) }.joined(separator: " ")
            for _ in 0..<scale { pbm += pixels + "\n" }
        }
        let image = dir.appending("qr.pbm")
        try pbm.write(toFile: image, atomically: true, encoding: .utf8)
        return try TLSServeTests.run("zbarimg", ["--raw", "-q", image]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static var zbarMissing: Bool { !FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") }

    @Test(.enabled(if: !zbarMissing, "zbarimg is missing (make test installs zbar-tools)"))
    func aWriteOnlyPairingWritesItsDatabaseFromOneClientAndNothingElse() throws {
        let dir = try TempDirectory(prefix: "pair")
        let (server, admin, tlsPort) = try Self.server(dir)
        defer { server.kill(SIGKILL) }
        let fingerprint = try TLSServeTests.printedFingerprint(server)
        let (url, output) = try Self.pair(admin, ["--db", "photos", "--write-only", "--uses", "1", "--ttl", "10m"])

        // The URL: a random name, a 128-bit password, the TLS port and the pin.
        let parts = try #require(URLComponents(string: url))
        let user = try #require(parts.user), password = try #require(parts.password)
        #expect(user.hasPrefix("pair-") && password.count >= 32 && password.allSatisfy(\.isHexDigit))
        #expect(parts.port == tlsPort && parts.path == "/photos")
        #expect(parts.fragment == "fp=" + fingerprint.filter { $0 != ":" }.lowercased())
        // The QR code says the same.
        #expect(try Self.decodeQRCode(output, in: dir) == url)

        let base = "https://127.0.0.1:\(tlsPort)"
        let login = ["-u", "\(user):\(password)"]
        // It writes new documents and attachments, and answers what a push replication asks.
        #expect(try Self.status(login + ["-X", "PUT", base + "/photos/mine", "-d", #"{"a":1}"#]) == 201)
        #expect(try Self.status(login + ["-X", "POST", base + "/photos", "-H", "Content-Type: application/json", "-d", "{}"]) == 201)
        #expect(try Self.status(login + [base + "/photos"]) == 200)
        #expect(try Self.status(login + ["-X", "POST", base + "/photos/_revs_diff", "-H", "Content-Type: application/json",
                                          "-d", #"{"secret":["1-abc"]}"#]) == 200)
        // It reads nothing, and no other database.
        for path in ["/photos/secret", "/photos/mine", "/photos/_all_docs", "/photos/_changes", "/other", "/other/x",
                     "/_users/org.couchdb.user:" + user] {
            #expect(try Self.status(login + [base + path]) == 403, "\(path)")
        }
        #expect(try Self.status(login + ["-X", "POST", base + "/photos/_bulk_get", "-H", "Content-Type: application/json",
                                          "-d", #"{"docs":[{"id":"secret"}]}"#]) == 403)
        #expect(try Self.status(login + ["-X", "PUT", base + "/photos/_design/x", "-d", "{}"]) == 403)
        // Its one use was taken by 127.0.0.1: another address is refused.
        #expect(try Self.status(login + ["--interface", "127.0.0.2", base + "/photos"]) == 401)
        #expect(try Self.status(login + [base + "/photos"]) == 200)
        // A wrong password is still wrong.
        #expect(try Self.status(["-u", "\(user):\(password)x", base + "/photos"]) == 401)

        // --list shows it, used by its one client; --revoke ends it.
        let listed = try Self.settee(["pair", "--list", "--json", "--server", admin])
        #expect(listed.output.contains(user) && listed.output.contains("127.0.0.1"))
        #expect(!listed.output.contains(password))
        #expect(try Self.settee(["pair", "--revoke", user, "--server", admin]).status == 0)
        #expect(try Self.status(login + [base + "/photos"]) == 401)
        // Nothing logged the password.
        #expect(!server.output.contains(password))
    }

    @Test func setteeReplicateTakesThePairingURLAsItIsAndTheRightPinOnly() throws {
        let dir = try TempDirectory(prefix: "pair-replicate")
        let (server, admin, _) = try Self.server(dir)
        defer { server.kill(SIGKILL) }
        let (url, _) = try Self.pair(admin, ["--db", "photos", "--write-only"])
        let pushed = try Self.settee(["replicate", admin + "/outbox", url])
        #expect(pushed.status == 0, "\(pushed.errors)")
        #expect(try Self.status([admin + "/photos/doc3"]) == 200)
        // Another fingerprint in the URL: refused, naming both.
        let fp = try #require(url.range(of: "#fp=")).upperBound
        let wrongPin = url.replacingCharacters(in: fp..<url.index(after: fp), with: url[fp] == "0" ? "1" : "0")
        let refused = try Self.settee(["replicate", admin + "/outbox", wrongPin])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("fingerprint") && refused.errors.contains("pinned"), "\(refused.errors)")
    }

    @Test func aPairingEndsAtItsExpiryAndNonsenseIsRefused() throws {
        let dir = try TempDirectory(prefix: "pair-expiry")
        let (server, admin, tlsPort) = try Self.server(dir)
        defer { server.kill(SIGKILL) }
        let made = try Self.settee(["pair", "--db", "photos", "--ttl", "6s", "--json", "--server", admin, "--host", "127.0.0.1"])
        let answer = try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any]
        let url = try #require(answer?["url"] as? String, "\(made.output) \(made.errors)")
        let expires = try #require((answer?["expires"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        let parts = try #require(URLComponents(string: url))
        let login = ["-u", "\(parts.user ?? ""):\(parts.password ?? "")"]
        let base = "https://127.0.0.1:\(tlsPort)"
        // Read and write (no --write-only) on its database until it expires.
        #expect(try Self.status(login + [base + "/photos/secret"]) == 200)
        var refusedAt: Date?
        while Date() < expires.addingTimeInterval(15) {
            if try Self.status(login + [base + "/photos/secret"]) == 401 { refusedAt = Date(); break }
            usleep(200_000)
        }
        let refused = try #require(refusedAt, "still accepted 15 s after the pairing's expiry")
        // Not before the expiry it was given (whole seconds, as stored).
        #expect(refused >= expires, "refused at \(refused), expiry \(expires)")

        for bad in [["--db", "photos", "--ttl", "soon"], ["--db", "photos", "--ttl", "0m"], ["--db", "photos", "--uses", "0"], []] {
            let result = try Self.settee(["pair"] + bad + ["--server", admin])
            #expect(result.status != 0 && !result.errors.isEmpty, "\(bad)")
        }
        #expect(try Self.settee(["pair", "--db", "nowhere", "--server", admin]).errors.contains("no database nowhere"))
        #expect(try Self.settee(["pair", "--db", "photos", "--server", "http://admin:wrong@" + admin.split(separator: "@")[1]])
            .errors.contains("refused the credentials"))
    }
}
