/*
 Runs the real `settee` binary for integration tests.

 Output (stdout and stderr merged into one pipe) is read on a dedicated thread and
 kept; `waitUntilListening` blocks on a condition variable until the server prints
 `Settee listening on http://ADDR:PORT/`, or the process exits, or the timeout
 passes — no sleeping and polling. The process is only ever signalled by its own pid.
*/
public import Foundation
internal import Glibc

/// A `settee` child process.
///
///     let dir = try TempDirectory()
///     let settee = try SetteeProcess.start(dataDirectory: dir.path)
///     let response = try TestHTTPClient.get(settee.baseURL.appendingPathComponent("_up"))
///     settee.kill(SIGTERM)
///     #expect(try settee.waitForExit() == 0)
public final class SetteeProcess: @unchecked Sendable {
    /// Admin credentials used by `start` unless told otherwise.
    public static let defaultAdmin = (name: "admin", password: "test-password")

    /// The launched process's id.
    public var pid: Int32 { process.processIdentifier }
    private let process: Process
    private let state = NSCondition()
    private var outputBytes: [UInt8] = []
    private var listening: [URL] = []
    private var exitStatus: Int32?
    /// Set when the output pipe reached end of file. The process can exit before
    /// its last bytes are read, so "finished" means exited *and* drained.
    private var outputClosed = false

    /// Whether the process has exited and all it wrote has been read (under `state`).
    private var finished: Bool { exitStatus != nil && outputClosed }

    /// Launches `settee serve ARGUMENTS` with `environment` added to a copy of ours
    /// (minus any inherited SETTEE_* variables, so the host cannot leak into a test).
    /// - Throws: `TestSupportError.binaryNotFound`, or the launch error.
    /// - Parameter launcher: a command that runs settee for us (its path first, then
    ///   its arguments; the settee binary and `serve ARGUMENTS` are appended), such as
    ///   `scripts/mdns-host NETNS HOST`.
    public init(arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws {
        process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [try Self.binaryURL().path, "serve"] + arguments
        } else {
            process.executableURL = try Self.binaryURL()
            process.arguments = ["serve"] + arguments
        }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SETTEE_") }
        env.merge(environment) { $1 }
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [state] finished in
            state.lock()
            // Signals come back as the signal number; callers compare with 0 either way.
            self.exitStatus = finished.terminationReason == .exit ? finished.terminationStatus : 128 + finished.terminationStatus
            state.broadcast()
            state.unlock()
        }
        try process.run()
        pipe.fileHandleForWriting.closeFile()
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in readOutput(from: reader) }
    }

    /// Starts a server on a free loopback port with a fresh admin and waits until it listens.
    public static func start(dataDirectory: String, port: Int? = nil,
                             admin: (name: String, password: String)? = defaultAdmin,
                             extraArguments: [String] = [], environment: [String: String] = [:],
                             timeout: TimeInterval = 60) throws -> SetteeProcess {
        let chosen = try port ?? FreePort.find()
        var env = environment
        if let admin { env["SETTEE_ADMIN"] = "\(admin.name):\(admin.password)" }
        let child = try SetteeProcess(
            arguments: ["--port", String(chosen), "--bind", "127.0.0.1", "--data-dir", dataDirectory] + extraArguments,
            environment: env)
        _ = try child.waitUntilListening(timeout: timeout)
        return child
    }

    /// The first announced URL, e.g. `http://127.0.0.1:5984/`. Valid after `waitUntilListening`.
    public var baseURL: URL {
        state.lock(); defer { state.unlock() }
        return listening.first ?? URL(fileURLWithPath: "/")
    }

    /// `method path` as the default admin (Basic auth), with `json` as the body when given.
    public func adminRequest(_ method: String, _ path: String, json: String? = nil) throws -> TestResponse {
        let admin = Self.defaultAdmin
        var headers = [("Authorization", "Basic " + Data("\(admin.name):\(admin.password)".utf8).base64EncodedString())]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try TestHTTPClient.request(method, URL(string: baseURL.absoluteString + path)!, headers: headers,
                                          body: json.map { Array($0.utf8) } ?? [])
    }

    /// Everything the process has written so far (stdout and stderr, interleaved).
    public var output: String {
        state.lock(); defer { state.unlock() }
        return String(decoding: outputBytes, as: UTF8.self)
    }

    /// Blocks until the server has announced a listener.
    /// - Returns: every announced base URL.
    /// - Throws: `TestSupportError.timedOut` on timeout or when the process exits first.
    public func waitUntilListening(timeout: TimeInterval = 60) throws -> [URL] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while listening.isEmpty && !finished {
            if !state.wait(until: deadline) { break }
        }
        guard !listening.isEmpty else {
            let why = exitStatus.map { "settee exited with \($0)" } ?? "no listening line after \(timeout)s"
            throw TestSupportError.timedOut("\(why); output:\n\(String(decoding: outputBytes, as: UTF8.self))")
        }
        return listening
    }

    /// Blocks until the output contains `text` (e.g. a line printed after the first
    /// listener's), the process exits, or `timeout` passes. - Returns: whether it appeared.
    @discardableResult
    public func waitForOutput(containing text: String, timeout: TimeInterval = 60) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while !String(decoding: outputBytes, as: UTF8.self).contains(text) && !finished {
            if !state.wait(until: deadline) { break }
        }
        return String(decoding: outputBytes, as: UTF8.self).contains(text)
    }

    /// Sends `signal` to this process (and only this one). No effect once it has exited.
    public func kill(_ signal: Int32 = SIGTERM) {
        state.lock(); defer { state.unlock() }
        if exitStatus == nil { _ = Glibc.kill(pid, signal) }
    }

    /// Blocks until the process exits and its output is read to the end (`output`
    /// is then complete).
    /// - Returns: the exit status, or 128 + signal number when killed by a signal.
    /// - Throws: `TestSupportError.timedOut`.
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 60) throws -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while !finished {
            if !state.wait(until: deadline) { break }
        }
        guard let exitStatus, outputClosed else {
            throw TestSupportError.timedOut("settee pid \(pid) did not exit (and close its output) in \(timeout)s")
        }
        return exitStatus
    }

    deinit {
        // A test that failed half-way must not leave a server behind.
        if exitStatus == nil { _ = Glibc.kill(pid, SIGKILL) }
    }

    private func readOutput(from handle: FileHandle) {
        while true {
            let chunk = handle.availableData
            state.lock()
            outputBytes += chunk
            listening = Self.listeningURLs(in: String(decoding: outputBytes, as: UTF8.self))
            if chunk.isEmpty { outputClosed = true }
            state.broadcast()
            state.unlock()
            if chunk.isEmpty { return }   // EOF: the process closed its output
        }
    }

    static func listeningURLs(in text: String) -> [URL] {
        text.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "Settee listening on ") else { return nil }
            return URL(string: String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// The built `settee`: `$SETTEE_BINARY`, else beside the running test bundle
    /// (SwiftPM puts products and test bundles in one directory), else `.build/debug`.
    public static func binaryURL() throws -> URL {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["SETTEE_BINARY"] { candidates.append(explicit) }
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(runner.deletingLastPathComponent().appendingPathComponent("settee").path)
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent("settee").path)
        }
        // Tests/SetteeTestSupport/SetteeProcess.swift → package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/settee").path)
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestSupportError.binaryNotFound(candidates)
        }
        return URL(fileURLWithPath: found)
    }
}
