import Foundation
import Glibc
import SetteeTestSupport
import Testing

/// Starts the real `settee` binary. Serialized: each test owns a process and a port,
/// and two at once only compete for the two cores.
@Suite(.serialized) struct ServeTests {
    @Test func announcesItsListenerAndAnswersHTTP() throws {
        let dir = try TempDirectory(prefix: "serve")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        #expect(settee.baseURL.host == "127.0.0.1")
        #expect(settee.output.contains("Settee listening on http://127.0.0.1:"))
        // What it answers is checked in LiveServerTests; here, that the announced URL works.
        let response = try TestHTTPClient.get(settee.baseURL.appendingPathComponent("_up"))
        #expect(response.status == 200)
    }

    @Test func sigtermShutsDownWithExitZero() throws {
        let dir = try TempDirectory(prefix: "sigterm")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        settee.kill(SIGTERM)
        #expect(try settee.waitForExit(timeout: 30) == 0)
    }

    /// A longpoll `_changes` still waiting when the server stops is cut off, not finished:
    /// a complete 200 with an empty body would read as an answer that is not JSON (CouchDB's
    /// feed dies with its connection too), and a continuous feed would look ended on purpose.
    @Test func aStopCutsOffAWaitingLongpollFeed() throws {
        let dir = try TempDirectory(prefix: "longpoll-stop")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        let admin = SetteeProcess.defaultAdmin
        let auth = "Basic " + Data("\(admin.name):\(admin.password)".utf8).base64EncodedString()
        let created = try TestHTTPClient.request("PUT", settee.baseURL.appendingPathComponent("feed"),
                                                 headers: [("Authorization", auth)])
        #expect(created.status == 201)
        let connection = try RawConnection(port: try #require(settee.baseURL.port))
        try connection.send("GET /feed/_changes?feed=longpoll&since=now&timeout=60000 HTTP/1.1\r\nHost: x\r\n"
                            + "Authorization: \(auth)\r\n\r\n")
        #expect(try connection.read(until: { $0.contains("\r\n\r\n") }, timeout: 10))
        settee.kill(SIGTERM)
        #expect(try connection.isClosedByPeer(timeout: 30))
        #expect(connection.received.hasPrefix("HTTP/1.1 200"))
        #expect(!connection.received.hasSuffix("0\r\n\r\n"), "a finished body: \(connection.received)")
        #expect(try settee.waitForExit(timeout: 30) == 0)
    }

    @Test func refusesPublicAddressWithoutAdmin() throws {
        let dir = try TempDirectory(prefix: "noadmin")
        // The refusal happens while loading the configuration, before any socket is
        // bound, so this never actually listens on 0.0.0.0.
        let settee = try SetteeProcess(arguments: ["--bind", "0.0.0.0", "--port", "0", "--data-dir", dir.path])
        let status = try settee.waitForExit(timeout: 30)
        #expect(status != 0)
        #expect(settee.output.contains("refusing to listen on 0.0.0.0 with no admin configured"))
        #expect(!settee.output.contains("Settee listening"))
    }

    @Test func persistsAGeneratedUUIDInTheDataDirectory() throws {
        let dir = try TempDirectory(prefix: "uuid")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        settee.kill(SIGTERM)
        try settee.waitForExit(timeout: 30)
        let uuid = try String(contentsOfFile: dir.appending(".uuid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(uuid.count == 32)
        #expect(uuid.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }
}
