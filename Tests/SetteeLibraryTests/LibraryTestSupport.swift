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
