import Dispatch
import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Synchronization
import Testing

/// Checking a password costs PBKDF2 at `[chttpd_auth] iterations` (600,000 rounds, a
/// good part of a second of one core): it runs on a small pool of threads of its own,
/// never Swift's cooperative threads (issue #46), so wrong passwords sent at once delay
/// no request that checks none, and past the pool's queue they are refused with 503.
@Suite(.serialized) struct PasswordHashingTests {
    static func call(_ settee: SetteeProcess, _ path: String, user: (String, String)? = nil) throws -> TestResponse {
        var headers: [(String, String)] = []
        if let user { headers.append(("Authorization", "Basic " + Data("\(user.0):\(user.1)".utf8).base64EncodedString())) }
        return try TestHTTPClient.request("GET", URL(string: settee.baseURL.absoluteString + path.dropFirst())!,
                                          headers: headers, body: [])
    }

    @Test func wrongPasswordsDoNotDelayRequestsThatCheckNone() throws {
        let dir = try TempDirectory(prefix: "pbkdf2")
        let ini = dir.appending("settee.ini")
        // Every wrong password is checked in full (no lockout answering 403 without a hash).
        try "[chttpd_auth_lockout]\nmode = off\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/_users/org.couchdb.user:carol",
                                        json: #"{"name":"carol","password":"right","roles":[],"type":"user"}"#).status == 201)

        // How slow `/_up` is on this machine now, with no password being checked.
        var before: Duration = .zero
        for _ in 0..<20 {
            let started = ContinuousClock.now
            #expect(try Self.call(settee, "/_up").status == 200)
            before = max(before, ContinuousClock.now - started)
        }

        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for attempt in 0..<8 {
            DispatchQueue.global().async(group: group) {
                let status = (try? Self.call(settee, "/_session", user: ("carol", "wrong\(attempt)")).status) ?? 0
                statuses.withLock { $0.append(status) }
            }
        }
        var slowest: Duration = .zero
        var timed = 0
        while group.wait(timeout: .now()) == .timedOut {
            let started = ContinuousClock.now
            #expect(try Self.call(settee, "/_up").status == 200)
            slowest = max(slowest, ContinuousClock.now - started)
            timed += 1
        }
        #expect(timed >= 5, "the wrong passwords were checked too fast to measure anything")
        // Each check takes a core for most of a second (seconds in a debug build): on the
        // cooperative pool, two of them left `/_up` waiting that long.
        #expect(slowest < max(.milliseconds(500), before * 3), "slowest GET /_up: \(slowest), \(before) before")
        let answered = statuses.withLock { $0 }
        #expect(answered.count == 8 && answered.allSatisfy { $0 == 401 || $0 == 503 }, "\(answered)")
        #expect(answered.contains(401))
        let session = try Self.call(settee, "/_session", user: ("carol", "right"))
        #expect(session.json?["userCtx"]?["name"]?.stringValue == "carol")
    }
}
