internal import Synchronization

/// Lets a repeated log line through once per `interval` at most (a cap hit by every
/// request of a busy minute is one line, not thousands).
final class LogThrottle: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(interval: Duration) { self.interval = interval }

    /// Whether to log now; true at most once per `interval`.
    func allows(at now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            if let previous = last, now - previous < interval { return false }
            last = now
            return true
        }
    }
}
