import Foundation
import Settee

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("settee-lib-\(UUID().uuidString)").path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A document type for the tests.
struct Note: Codable, Sendable, Equatable {
    var text: String
    var priority: Int = 0
    var tags: [String] = []
}

/// Opens a fresh data directory, runs `body` with it, closes and removes it.
func withDataDirectory<T>(options: DataDirectory.Options = DataDirectory.Options(),
                          _ body: (DataDirectory) async throws -> T) async throws -> T {
    let scratch = ScratchDirectory()
    defer { scratch.remove() }
    let data = try DataDirectory(path: scratch.path, options: options)
    do {
        let result = try await body(data)
        await data.close()
        return result
    } catch {
        await data.close()
        throw error
    }
}

/// Awaits `body`, failing when it takes longer than `limit` (a hung sequence must not hang the suite).
func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut() }
        return value
    }
}

struct TimedOut: Error {}

/// Runs a command to its end (awaited, not blocking a thread); its status and output.
func runCapturing(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let status = try await within(.seconds(120)) {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }
    return (status, String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
}
