import Logging
@testable import SetteeServer
import Testing

/// `SecurityRefusalLog`: one line per client address a minute at most, whatever it is
/// refused and from whichever port (issue 46: "logs the refusal once per client and minute").
@Suite struct SecurityRefusalLogTests {
    let logger = Logger(label: "test.refusals")

    func note(_ log: SecurityRefusalLog, _ kind: String = "forbidden", client: String, at now: Int) -> Bool {
        log.note(kind, client: client, path: "/secret/doc", reason: "You are not allowed to access this db.",
                 logger: logger, now: now)
    }

    @Test func aClientIsLoggedOnceAMinute() {
        let log = SecurityRefusalLog()
        #expect(note(log, client: "10.0.0.7:50001", at: 1000))
        #expect(!note(log, client: "10.0.0.7:50002", at: 1001))  // another port, the same client
        #expect(!note(log, "unauthorized", client: "10.0.0.7:50003", at: 1059))  // another refusal, still the same minute
        #expect(note(log, client: "10.0.0.8:50001", at: 1059))  // another client
        #expect(note(log, client: "10.0.0.7:50004", at: 1060))  // a minute later
        #expect(note(log, client: "[::1]:50001", at: 1060))
        #expect(!note(log, client: "[::1]:50002", at: 1061))
    }

    @Test func manyClientsDoNotGrowTheTableForever() {
        let log = SecurityRefusalLog()
        for i in 0..<10_000 { _ = note(log, client: "10.\(i / 65536).\(i / 256 % 256).\(i % 256):1", at: 0) }
        #expect(log.rememberedClients == 10_000)
        // Past the limit, entries older than a minute go.
        #expect(note(log, client: "192.0.2.1:1", at: 61))
        #expect(log.rememberedClients == 1)
        #expect(!note(log, client: "192.0.2.1:2", at: 62))
    }
}
