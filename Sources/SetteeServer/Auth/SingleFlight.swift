import Synchronization

/// Runs one task per key at a time: a caller that asks for a key while its task runs
/// waits for that task rather than starting its own, and gets its value or its error.
/// A key's task is forgotten once it ends, so the next call (after a failure, say: a
/// 503 from a full `PasswordHashing` queue) runs it again.
///
/// What the auth code coalesces: the derivation of a `SETTEE_ADMIN` password's hash
/// (`EnvironmentAdmin`) and the check of one credential (`CredentialCache`), each a
/// PBKDF2 that a room's peers, starting together, would otherwise each queue.
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let task: Task<Value, any Error>
        var callers: Int
    }

    private let flights = Mutex<[Key: Flight]>([:])

    init() {}

    /// `work`'s value for `key`: run now, or the one already running for `key`.
    func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = flights.withLock { flights in
            if let flight = flights[key] {
                flights[key]?.callers += 1
                return flight.task
            }
            let task = Task { try await work() }
            flights[key] = Flight(task: task, callers: 1)
            return task
        }
        defer { flights.withLock { flights in if flights[key]?.task == task { flights[key] = nil } } }
        return try await task.value
    }

    /// How many callers have asked for `key`'s running task (0 when none runs): for tests.
    func callers(of key: Key) -> Int { flights.withLock { $0[key]?.callers ?? 0 } }
}
