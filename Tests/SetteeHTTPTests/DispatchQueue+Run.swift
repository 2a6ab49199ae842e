import Dispatch

extension DispatchQueue {
    /// Runs `body` on this queue and awaits its result: the test clients' blocking socket
    /// calls then never occupy the cooperative pool the server under test runs on.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in async { c.resume(with: Result { try body() }) } }
    }

    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { c in async { c.resume(returning: body()) } }
    }
}
