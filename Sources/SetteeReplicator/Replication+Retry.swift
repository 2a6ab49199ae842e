internal import FoundationEssentials
internal import Logging
internal import Synchronization

/// Transient failures (network, 5xx, a revision in flux) retry the step with back-off.
extension Replication {
    /// Runs `step`, retrying transient failures with back-off: a few times for a
    /// one-shot replication, until cancelled for a continuous one.
    func retrying<T: Sendable>(_ step: () async throws -> T) async throws -> T {
        var backoff = Backoff()
        var attempt = 0
        var previous: String?
        while true {
            do {
                let value = try await step()
                state.withLock {
                    $0.lastError = nil
                    $0.failures = 0
                    $0.lastAnswer = Date()
                }
                return value
            } catch let error as ReplicationError where error.isTransient {
                attempt += 1
                state.withLock { [attempt] in
                    $0.lastError = error.description
                    $0.lastErrorSeen = (error.description, Date())
                    $0.failures = attempt
                }
                if !options.continuous && attempt > options.retries { throw error }
                // A peer that stays down (or answers 500) fails the same way each retry: one
                // warning for a run of the same failure, the retries at debug.
                let message: Logger.Message = "replication step failed (\(error)); retrying"
                if attempt == 1 || error.description != previous { logger.warning(message) } else { logger.debug(message) }
                previous = error.description
                try await backoff.wait()
            }
        }
    }
}
