/// Counters of a replication so far (both directions summed for push-and-pull).
public struct ReplicationProgress: Sendable, Hashable {
    /// Documents read from the source.
    public var documentsRead = 0
    /// Documents written to the target.
    public var documentsWritten = 0
    /// Documents the target refused (a `validate_doc_update`, a rule).
    public var documentWriteFailures = 0

    public init() {}

    static func + (lhs: ReplicationProgress, rhs: ReplicationProgress) -> ReplicationProgress {
        var sum = lhs
        sum.documentsRead += rhs.documentsRead
        sum.documentsWritten += rhs.documentsWritten
        sum.documentWriteFailures += rhs.documentWriteFailures
        return sum
    }
}

/// Where a replicator stands.
public enum ReplicatorStatus: Sendable, Hashable {
    /// Reaching the peers, reading checkpoints.
    case connecting
    /// Copying changes.
    case busy(ReplicationProgress)
    /// Caught up; a continuous replicator waits for new changes.
    case idle(ReplicationProgress)
    /// A peer is unreachable (or answered 5xx): retrying with back-off.
    case offline(reason: String)
    /// Finished: a one-shot replication caught up, a replicator was stopped, or an
    /// error ended it (`error`).
    case stopped(ReplicationProgress, error: SetteeError?)

    /// Whether the replicator has finished.
    public var isStopped: Bool { if case .stopped = self { true } else { false } }

    /// The progress this status carries (empty while connecting or offline).
    public var progress: ReplicationProgress {
        switch self {
        case .busy(let progress), .idle(let progress), .stopped(let progress, _): progress
        case .connecting, .offline: ReplicationProgress()
        }
    }

    /// Two directions' statuses as one: an error or an offline peer first, then busy,
    /// then connecting; idle or stopped only when both are.
    static func combined(_ a: ReplicatorStatus, _ b: ReplicatorStatus) -> ReplicatorStatus {
        let progress = a.progress + b.progress
        switch (a, b) {
        case (.stopped(_, let e1), .stopped(_, let e2)): return .stopped(progress, error: e1 ?? e2)
        case (.offline, _): return a
        case (_, .offline): return b
        case (.busy, _), (_, .busy): return .busy(progress)
        case (.connecting, _), (_, .connecting): return .connecting
        default: return .idle(progress)
        }
    }
}

/// A replicator's status changes, as an `AsyncSequence`: the current status first, then
/// each change, ending after ``ReplicatorStatus/stopped(_:error:)``. Cancelling the
/// iterating task ends it.
public struct ReplicatorStatusUpdates: AsyncSequence, Sendable {
    public typealias Element = ReplicatorStatus
    public typealias Failure = Never

    let stream: AsyncStream<ReplicatorStatus>

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<ReplicatorStatus>.Iterator

        public mutating func next() async -> ReplicatorStatus? { await base.next() }
    }
}
