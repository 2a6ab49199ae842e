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
