internal import SetteeStore

/// A query kept up to date: an `AsyncSequence` of result pages that yields the current
/// results first, then the new results each time a write changes them (Couchbase Lite's
/// LiveQuery, GRDB's ValueObservation).
///
///     for try await page in notes.liveQuery(Note.self, Query(Selector.field("done") == false)) {
///         render(page.documents)
///     }
///
/// A commit wakes the observer directly (no polling); the query then runs again and
/// its page is yielded only when the ids or revisions it holds differ from the last
/// one's. Writes that land together are seen together. Cancelling the iterating task
/// ends the sequence.
public struct LiveQuery<Value: Codable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = QueryPage<Value>
    public typealias Failure = SetteeError

    let database: Database
    let query: Query

    public func makeAsyncIterator() -> Iterator { Iterator(database: database, query: query) }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let database: Database
        let query: Query
        /// The database sequence the last page was read at (read before the query, so a
        /// write during it is not missed), nil before the first.
        var sequence: Int64?
        var lastVersions: [String]?

        init(database: Database, query: Query) {
            self.database = database
            self.query = query
        }

        public mutating func next() async throws(SetteeError) -> QueryPage<Value>? {
            let notifier = database.store.changesNotifier
            while !Task.isCancelled {
                if let sequence {
                    guard try await database.waitForChange(after: sequence) else { return nil }
                }
                sequence = notifier.sequence
                let page = try await database.find(Value.self, query)
                let versions = page.documents.map { $0.id + "\u{0}" + $0.revision }
                if versions != lastVersions {
                    lastVersions = versions
                    return page
                }
            }
            return nil
        }
    }
}

extension Database {
    /// `query`'s results now, then each time a write changes them.
    public func liveQuery<Value>(_ type: Value.Type, _ query: Query) -> LiveQuery<Value> {
        LiveQuery(database: self, query: query)
    }
}
