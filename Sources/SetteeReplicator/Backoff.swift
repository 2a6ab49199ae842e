/// Waits between retries: 250 ms, doubling, capped (CouchDB's replicator starts
/// at 250 ms and doubles too). Cancellation ends a wait at once.
struct Backoff {
    let first: Duration
    let cap: Duration
    private(set) var next: Duration

    init(first: Duration = .milliseconds(250), cap: Duration = .seconds(60)) {
        self.first = first
        self.cap = cap
        next = first
    }

    mutating func wait() async throws {
        try await Task.sleep(for: next)
        next = min(next * 2, cap)
    }

    mutating func reset() { next = first }
}
