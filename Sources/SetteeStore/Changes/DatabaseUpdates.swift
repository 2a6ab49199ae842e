internal import Synchronization

/*
 DatabaseUpdates: the server-wide event log behind `GET /_db_updates`.

 CouchDB's `_db_updates` reports `{"db_name", "type", "seq"}` for databases that were
 created, updated or deleted, with `feed=normal|longpoll|continuous` and `since`
 like `_changes`. Settee keeps the recent events in memory only:

 Invariants:
 1. Every recorded event gets the next sequence (strictly increasing from the one the
    log was created with); `history` is ordered by sequence.
 2. `history` holds at most `capacity` events (the newest). It is trimmed in batches
    once it reaches twice the capacity, so recording is amortised O(1).
 3. Recording and reading the history happen under one lock, and the notifier is told
    after the lock is released; a feed that reads the history after `wait` returns
    sees every event up to the sequence `wait` returned.
 4. A reader whose `since` is older than the oldest kept event is told so
    (`isComplete == false`), so it can answer from what is left rather than silently
    skip: CouchDB's own feed is likewise not a full history (it coalesces per db).
*/

/// One entry of `_db_updates`.
public struct DatabaseUpdate: Sendable, Hashable {
    /// What happened to the database; raw values are CouchDB's `type` words.
    public enum Kind: String, Sendable, Hashable {
        case created, updated, deleted
    }

    /// The database's name (`db_name` on the wire).
    public var databaseName: String
    public var kind: Kind
    /// The event's position in the server-wide log (`seq` on the wire).
    public var seq: Int64

    public init(databaseName: String, kind: Kind, seq: Int64) {
        self.databaseName = databaseName
        self.kind = kind
        self.seq = seq
    }
}

/// The server-wide log of database events, with a bounded in-memory history that a
/// `_db_updates` feed can resume from.
///
///     let updates = DatabaseUpdates()
///     updates.record(.created, databaseName: "albums")
///     let page = updates.updates(after: 0)        // [created albums @1]
///     let next = await updates.wait(after: page.lastSeq, timeout: .seconds(60))
public final class DatabaseUpdates: Sendable {
    /// What a reader gets back from ``updates(after:limit:)``.
    public struct Page: Sendable, Hashable {
        /// The events after the requested sequence, oldest first.
        public var updates: [DatabaseUpdate]
        /// The sequence to resume from: the last returned event's, or the log's
        /// current sequence when nothing was returned.
        public var lastSeq: Int64
        /// False when events after `since` were already dropped from the history.
        public var isComplete: Bool

        public init(updates: [DatabaseUpdate], lastSeq: Int64, isComplete: Bool) {
            self.updates = updates
            self.lastSeq = lastSeq
            self.isComplete = isComplete
        }
    }

    private struct State {
        var latest: Int64
        var history: [DatabaseUpdate] = []
    }

    /// The number of most recent events kept.
    public let capacity: Int
    private let state: Mutex<State>
    private let notifier: ChangesNotifier

    /// Creates an empty log whose next event gets `sequence + 1`.
    /// - Parameter capacity: how many recent events to keep (at least 1).
    public init(capacity: Int = 1_000, sequence: Int64 = 0) {
        precondition(capacity > 0, "DatabaseUpdates capacity must be positive")
        self.capacity = capacity
        self.state = Mutex(State(latest: sequence))
        self.notifier = ChangesNotifier(sequence: sequence)
    }

    /// The sequence of the most recent event.
    public var sequence: Int64 { state.withLock { $0.latest } }

    /// Records that database `databaseName` was created, updated or deleted, and
    /// wakes every waiting `_db_updates` feed. Cheap and callable from any thread.
    /// - Returns: the event's sequence.
    @discardableResult
    public func record(_ kind: DatabaseUpdate.Kind, databaseName: String) -> Int64 {
        let seq = state.withLock { s -> Int64 in
            s.latest += 1
            s.history.append(DatabaseUpdate(databaseName: databaseName, kind: kind, seq: s.latest))
            if s.history.count >= 2 * capacity {
                s.history.removeFirst(s.history.count - capacity)
            }
            return s.latest
        }
        notifier.notify(sequence: seq)
        return seq
    }

    /// The kept events with a sequence greater than `since`, oldest first, at most
    /// `limit` of them.
    public func updates(after since: Int64, limit: Int = .max) -> Page {
        state.withLock { s in
            let kept = s.history.suffix(capacity)
            let oldest = kept.first?.seq ?? s.latest + 1
            // Events since+1 ..< oldest existed but are gone.
            let isComplete = since >= oldest - 1 || since >= s.latest
            let start = kept.firstIndex { $0.seq > since } ?? kept.endIndex
            let page = Array(kept[start...].prefix(max(0, limit)))
            return Page(updates: page, lastSeq: page.last?.seq ?? max(since, s.latest), isComplete: isComplete)
        }
    }

    /// Waits until an event after `seq` exists; see ``ChangesNotifier/wait(after:timeout:)``.
    /// - Returns: the latest sequence, or nil on timeout or cancellation.
    public func wait(after seq: Int64, timeout: Duration?) async -> Int64? {
        await notifier.wait(after: seq, timeout: timeout)
    }

    /// How many feeds are waiting (tests and diagnostics).
    public var waiterCount: Int { notifier.waiterCount }

    /// Suspends until ``waiterCount`` equals `count` (tests and diagnostics).
    public func waitUntil(waiterCount count: Int) async {
        await notifier.waitUntil(waiterCount: count)
    }
}
