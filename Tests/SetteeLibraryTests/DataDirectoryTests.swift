import Foundation
import Settee
import Testing

@Suite struct DataDirectoryTests {
    @Test func aSecondOpenOfAHeldDirectoryIsRefusedUntilClose() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let first = try DataDirectory(path: scratch.path)
        let notes = try await first.database("notes")
        let saved = try await notes.save(Note(text: "kept"), id: "n1")
        #expect(throws: SetteeError.directoryLocked(path: scratch.path)) { try DataDirectory(path: scratch.path) }
        await first.close()
        await #expect(throws: SetteeError.closed) { try await first.database("notes") }
        let second = try DataDirectory(path: scratch.path)
        #expect(try second.databaseNames() == ["notes"])
        let reopened = try await second.database("notes", createIfMissing: false)
        #expect(try await reopened.document(Note.self, id: "n1")?.revision == saved.revision)
        await #expect(throws: SetteeError.databaseNotFound("other")) {
            try await second.database("other", createIfMissing: false)
        }
        await second.close()
    }

    /// `settee serve` on a directory this program holds exits at once with the reason,
    /// and writes nothing into it.
    @Test func setteeServeRefusesADirectoryTheProgramHolds() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let data = try DataDirectory(path: scratch.path)
        let notes = try await data.database("notes")
        _ = try await notes.save(Note(text: "mine"), id: "n1")
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        let server = try ServeProcess(dataDirectory: scratch.path)
        let status = await server.exitStatus(within: .seconds(30))
        #expect(status != nil && status != 0)
        #expect(server.standardError().contains("in use by another process"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == before)
        #expect(try await notes.document(Note.self, id: "n1")?.value.text == "mine")
        await data.close()
    }

    /// The other way round: while `settee serve` runs on a directory, opening it here is
    /// the typed error; once it stops, the program opens it and finds what it wrote.
    @Test func theProgramCannotOpenADirectorySetteeServeHolds() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let server = try ServeProcess(dataDirectory: scratch.path)
        _ = try await within(.seconds(30)) { try server.waitUntilListening() }
        #expect(throws: SetteeError.directoryLocked(path: scratch.path)) { try DataDirectory(path: scratch.path) }
        server.terminate()
        #expect(await server.exitStatus(within: .seconds(30)) == 0)
        let data = try DataDirectory(path: scratch.path)
        #expect(try data.databaseNames().contains("_users"))
        await data.close()
    }
}

/// The built `settee serve` on a data directory and a free port (the binary SwiftPM
/// puts beside this test bundle).
final class ServeProcess: @unchecked Sendable {
    // @unchecked: Process and Pipe are used from one test at a time.
    let process = Process()
    let output = Pipe()
    let errors = Pipe()

    init(dataDirectory: String) throws {
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates: [String?] = [ProcessInfo.processInfo.environment["SETTEE_BINARY"], bundle.appendingPathComponent("settee").path]
        guard let binary = candidates.compactMap({ $0 }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TimedOut()
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--data-dir", dataDirectory, "--port", "0", "--bind", "127.0.0.1"]
        var environment = ProcessInfo.processInfo.environment
        environment["SETTEE_ADMIN"] = "admin:admin"
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Blocks until the `Settee listening on` line (or the process ends).
    func waitUntilListening() throws -> String {
        var text = ""
        while !text.contains("Settee listening on") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw TimedOut() }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// The exit status, or nil when the process still runs after `limit` (it is then killed).
    func exitStatus(within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        guard !process.isRunning else {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    func standardError() -> String { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

    func terminate() { process.terminate() }

    deinit { if process.isRunning { process.terminate() } }
}
