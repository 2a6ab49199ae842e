/*
 One running copy of Examples/PeerNotes on a network-namespace host (`scripts/mdns-host`),
 driven through its standard input as a person at a terminal would.

 mdns-host runs its command as a background job of a script read from a here-document,
 so the command's standard input is not the launcher's: the copy reads a FIFO in its
 temporary directory instead (`sh -c 'exec peernotes ... < FIFO'`), which this side
 holds open for reading and writing (so opening it never blocks, and the copy sees the
 end of its input only when `quit` or `stop()` closes it). Standard output is read on a
 thread of its own into lines; `ask` sends one command and waits, with a deadline, for
 the line that ends its answer.
*/
import Foundation
import Glibc
import SetteeTestSupport

final class PeerNotesCopy: @unchecked Sendable {
    // @unchecked: `lines`, `errors` and `exited` are guarded by `state`.
    private let process = Process()
    private let state = NSCondition()
    private var lines: [String] = []
    private var consumed = 0
    private var errors: [UInt8] = []
    private var exited: Int32?
    private let input: FileHandle

    /// The built `peernotes`: beside the `settee` the other integration tests run.
    static func binaryPath() throws -> String {
        let path = try SetteeProcess.binaryURL().deletingLastPathComponent().appendingPathComponent("peernotes").path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw TestSupportError.binaryNotFound([path]) }
        return path
    }

    /// Starts `peernotes ARGUMENTS` on `netns` as host `host`, its notes in `directory`.
    init(netns: String, host: String, directory: TempDirectory, secret: String, arguments: [String]) throws {
        let fifo = directory.appending("stdin")
        guard mkfifo(fifo, 0o600) == 0 else { throw TestSupportError.badResponse("mkfifo \(fifo): errno \(errno)") }
        // O_RDWR: opening never waits for the reader, and the reader never sees an early end.
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw TestSupportError.badResponse("open \(fifo): errno \(errno)") }
        input = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: DiscoveryTests.mdnsHost)
        process.arguments = [netns, host, "/bin/sh", "-c", "exec \"$0\" \"$@\" < \"$PEERNOTES_STDIN\"",
                             try Self.binaryPath(), "--data", directory.appending("notes")] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["PEERNOTES_SECRET": secret, "PEERNOTES_STDIN": fifo]) { $1 }
        let output = Pipe(), errorOutput = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [state] finished in
            state.lock()
            self.exited = finished.terminationStatus
            state.broadcast()
            state.unlock()
        }
        try process.run()
        output.fileHandleForWriting.closeFile()
        errorOutput.fileHandleForWriting.closeFile()
        Thread.detachNewThread { [self] in read(output.fileHandleForReading, intoLines: true) }
        Thread.detachNewThread { [self] in read(errorOutput.fileHandleForReading, intoLines: false) }
    }

    deinit {
        if exited == nil { _ = Glibc.kill(process.processIdentifier, SIGTERM) }
    }

    private func read(_ handle: FileHandle, intoLines: Bool) {
        var pending = ""
        while true {
            let chunk = handle.availableData
            state.lock()
            if intoLines {
                pending += String(decoding: chunk, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    lines.append(String(pending[..<newline]))
                    pending = String(pending[pending.index(after: newline)...])
                }
            } else {
                errors += chunk
            }
            state.broadcast()
            state.unlock()
            if chunk.isEmpty { return }
        }
    }

    /// What the copy has printed on standard error so far (for failure messages).
    var errorOutput: String {
        state.lock(); defer { state.unlock() }
        return String(decoding: errors, as: UTF8.self)
    }

    /// Waits until a line not yet consumed satisfies `isLast`; the lines up to it (consumed).
    /// - Throws: `TestSupportError.timedOut` when none comes within `timeout` or the copy exits.
    func lines(until isLast: (String) -> Bool, timeout: TimeInterval = 30) throws -> [String] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while true {
            if let end = lines[consumed...].firstIndex(where: isLast) {
                defer { consumed = end + 1 }
                return Array(lines[consumed...end])
            }
            if exited != nil || !state.wait(until: deadline) {
                throw TestSupportError.timedOut("no answer; printed \(lines.suffix(20)), stderr \(errors.count) bytes:\n"
                                                + String(decoding: errors.suffix(3000), as: UTF8.self))
            }
        }
    }

    /// Sends one command line.
    func send(_ command: String) {
        input.write(Data((command + "\n").utf8))
    }

    /// Sends `command` and returns its one-line answer.
    func ask(_ command: String) throws -> String {
        send(command)
        return try lines { $0.hasPrefix("added ") || $0.hasPrefix("appended ") || $0.hasPrefix("edited ")
            || $0.hasPrefix("error:") }.last ?? ""
    }

    /// `list`: each note's id and its lines, in order.
    func notes() throws -> [String: [String]] {
        send("list")
        let answer = try lines { $0.hasSuffix(" note") || $0.hasSuffix(" notes") }
        var notes: [String: [String]] = [:]
        var current: String?
        for line in answer.dropLast() {
            if line.hasPrefix("  "), let current, let dot = line.firstIndex(of: ".") {
                notes[current, default: []].append(String(line[line.index(dot, offsetBy: 2)...]))
            } else if !line.hasPrefix("  ") {
                current = line
                notes[line] = []
            }
        }
        return notes
    }

    /// Polls `notes()` until `condition` holds or `seconds` pass; the last listing.
    func notes(within seconds: TimeInterval, until condition: ([String: [String]]) -> Bool) throws -> [String: [String]] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var listing = try notes()
        while !condition(listing) && Date() < deadline {
            usleep(200_000)  // between polls of the copy's state, not instead of them
            listing = try notes()
        }
        return listing
    }

    /// `quit`, then waits for the exit. - Returns: the exit status.
    func quit(timeout: TimeInterval = 30) throws -> Int32 {
        send("quit")
        let deadline = Date(timeIntervalSinceNow: timeout)
        state.lock(); defer { state.unlock() }
        while exited == nil {
            if !state.wait(until: deadline) { throw TestSupportError.timedOut("peernotes did not quit in \(timeout)s") }
        }
        return exited ?? -1
    }
}
