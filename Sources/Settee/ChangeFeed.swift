internal import SetteeStore

/// One document's latest change in a database.
public struct Change: Sendable, Hashable {
    /// The database's sequence of this change (increasing; treat as opaque for peers).
    public let sequence: Int64
    public let id: String
    /// The document's current leaf revisions, the winner first.
    public let revisions: [String]
    public let isDeleted: Bool
}

/// The changes of a database, oldest first, as CouchDB's `_changes` lists them (one
/// entry per document, at its latest change): an `AsyncSequence` that, when
/// `continuous`, waits for new writes instead of ending (no polling: a commit wakes it).
///
///     for try await change in notes.changes(since: .now) { print(change.id) }
///
/// Cancelling the task that iterates ends the sequence (`next()` returns nil).
public struct ChangeFeed: AsyncSequence, Sendable {
    public typealias Element = Change
    public typealias Failure = SetteeError

    /// Where a feed starts.
    public enum Start: Sendable, Hashable {
        /// Every document's latest change.
        case beginning
        /// Only changes made after the feed was created.
        case now
        /// Changes after this sequence.
        case sequence(Int64)
    }

    let database: Database
    let since: Int64
    let isContinuous: Bool

    public func makeAsyncIterator() -> Iterator { Iterator(feed: self, since: since) }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let feed: ChangeFeed
        var since: Int64
        var buffered: [Change] = []
        var position = 0

        init(feed: ChangeFeed, since: Int64) {
            self.feed = feed
            self.since = since
        }

        public mutating func next() async throws(SetteeError) -> Change? {
            while position == buffered.count {
                if Task.isCancelled { return nil }
                let since = self.since
                let store = feed.database.store
                let page = try await feed.database.run { try await store.changes(since: since, limit: 256, descending: false) }
                if !page.isEmpty {
                    buffered = page.map {
                        Change(sequence: $0.sequence, id: $0.id, revisions: $0.leaves.map(\.description), isDeleted: $0.isDeleted)
                    }
                    position = 0
                    self.since = page[page.count - 1].sequence
                    break
                }
                guard feed.isContinuous else { return nil }
                guard try await feed.database.waitForChange(after: since) else { return nil }
            }
            defer { position += 1 }
            return buffered[position]
        }
    }
}

extension Database {
    /// Waits until the database's sequence passes `sequence` (a commit wakes it; nothing
    /// polls the database). - Returns: false when the task was cancelled.
    /// - Throws: ``SetteeError/closed`` once the directory is closed (checked each second).
    func waitForChange(after sequence: Int64) async throws(SetteeError) -> Bool {
        while true {
            if await store.changesNotifier.wait(after: sequence, timeout: .seconds(1)) != nil { return true }
            if Task.isCancelled { return false }
            try data.checkOpen()
        }
    }

    /// The database's changes from `start`; with `continuous` (the default) the feed
    /// waits for new ones until its task is cancelled, otherwise it ends when caught up.
    public func changes(since start: ChangeFeed.Start = .beginning, continuous: Bool = true) -> ChangeFeed {
        let since: Int64 = switch start {
        case .beginning: 0
        case .now: store.changesNotifier.sequence
        case .sequence(let sequence): sequence
        }
        return ChangeFeed(database: self, since: since, isContinuous: continuous)
    }
}
