import SetteeHTTP
import SetteeJSON
import SetteeStore

/// The streaming `_changes` feeds: longpoll, continuous and eventsource.
///
/// The loop: read what is after `since`, write it, then sleep on the
/// database's `ChangesNotifier` until a write wakes it, the heartbeat is due
/// or the timeout ends the feed. The notifier's `wait(after:)` returns at once
/// when the database is already past `since`, so a write racing the feed's
/// start is never missed, and `since` moves only over rows that were written,
/// so none is sent twice. With a heartbeat and no timeout the feed runs until
/// the client goes; a write to a gone client throws and ends it, releasing
/// everything (`ChangesQuery.idleLimit` has the timeout rules).
///
/// Continuous and eventsource lines are encoded once per (since, limit, format)
/// and database sequence and the bytes shared with every feed that asks the same
/// (`ChangesHub`): after a write, the feeds parked at the same seq send one
/// encoding instead of each reading and serializing the change.
///
/// A class, not a struct: every wake-up hands the feed to the shared encoding's
/// closure, and a struct was copied there whole (a retain of each of the query's
/// parts), once a feed for every write.
final class ChangesFeed: Sendable {
    let database: Database
    let query: ChangesQuery
    let hub: ChangesHub
    /// `query.sharedLineFormat`, worked out once rather than on every wake-up.
    private let lineFormat: ChangesLineFormat?
    /// The database's shared encodings in `hub`, looked up once (not under the hub's lock on every wake-up).
    private let encodings: ChangesHub.Encodings?

    init(database: Database, query: ChangesQuery, hub: ChangesHub) {
        self.database = database
        self.query = query
        self.hub = hub
        lineFormat = query.sharedLineFormat
        encodings = lineFormat == nil ? nil : hub.encodings(of: database)
    }

    func response() -> HTTPResponse {
        let type = query.feed == .eventsource ? "text/event-stream" : "application/json"
        return HTTPResponse(status: 200, headers: ["Content-Type": type, "Cache-Control": "must-revalidate"],
                            body: .stream { [self] writer in try await hub.counting { try await run(writer) } })
    }

    private func run(_ writer: any ResponseBodyWriter) async throws {
        var since: Int64
        if let given = query.since { since = given } else { since = try await database.updateSequence() }
        var remaining = query.limit
        let clock = ContinuousClock()
        let deadline = query.idleLimit.map { clock.now + $0 }
        let heartbeat = query.heartbeat.map { Duration.milliseconds(max($0, 1)) }
        while true {
            if query.feed == .longpoll {
                let batch = try await ChangesBatch.read(database, query: query, since: since, limit: remaining)
                // With `limit=0` no change ends the wait: CouchDB answers at the timeout.
                if !batch.changes.isEmpty {
                    return try await writer.write(try await batch.normalBody(query: query, updateSeq: batch.scannedTo))
                }
                since = batch.scannedTo
            } else {
                let page = try await lines(after: since, limit: remaining)
                if page.count > 0 { try await writer.write(page.bytes) }
                since = page.scannedTo
                if let r = remaining {
                    remaining = r - page.count
                    if remaining == 0 { return try await finish(writer, reached: since, stoppedByLimit: true) }
                }
            }
            // The HTTP layer cancels this task when the client goes or the server stops. The
            // feed is cut off then, not finished: a finished longpoll body would be empty, not
            // JSON, and a continuous one would look ended on purpose (CouchDB's dies with its
            // connection too).
            if writer.isPeerClosed || Task.isCancelled { throw CancellationError() }
            let untilDeadline = deadline.map { $0 - clock.now }
            if let untilDeadline, untilDeadline <= .zero {
                return try await finish(writer, reached: since, stoppedByLimit: false)
            }
            let wait = Self.earlier(heartbeat, untilDeadline)
            if await database.changesNotifier.wait(after: since, timeout: wait) == nil, heartbeat != nil,
               deadline.map({ clock.now < $0 }) ?? true {
                try await writer.write(query.feed == .eventsource ? Array("event: heartbeat\ndata: \n\n".utf8) : [0x0A])
            }
        }
    }

    /// The lines for the changes after `since`, shared with other feeds when the query allows.
    private func lines(after since: Int64, limit: Int?) async throws -> EncodedChanges {
        let encode: @Sendable () async throws -> EncodedChanges = { [self] in
            let batch = try await ChangesBatch.read(database, query: query, since: since, limit: limit)
            return EncodedChanges(bytes: try await lines(batch), count: batch.changes.count, scannedTo: batch.scannedTo)
        }
        guard let lineFormat, let encodings else { return try await encode() }
        return try await encodings.value(for: ChangesLinesKey(since: since, limit: limit, format: lineFormat),
                                         at: database.changesNotifier.sequence, work: encode)
    }

    /// The shorter of two optional waits; nil when both are (an array and `min()` allocated on every wake-up).
    private static func earlier(_ a: Duration?, _ b: Duration?) -> Duration? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Continuous: one JSON object per line. Eventsource: `data:` and `id:` per event.
    private func lines(_ batch: ChangesBatch) async throws -> [UInt8] {
        var out: [UInt8] = []
        for change in batch.changes {
            if query.feed == .eventsource { out.append(contentsOf: "data: ".utf8) }
            try await ChangesBatch.write(change, query: query, database: database, to: &out)
            out.append(0x0A)
            if query.feed == .eventsource {
                // CouchDB writes the id as JSON, quotes included; Last-Event-ID takes it either way.
                out.append(contentsOf: "id: ".utf8)
                SequenceToken.write(change.sequence, to: &out)
                out.append(contentsOf: "\n\n".utf8)
            }
        }
        return out
    }

    /// The end of a feed: continuous ends with its `last_seq` line, longpoll with an
    /// empty result (`ChangesFeedEnd` decides both figures); eventsource just stops.
    private func finish(_ writer: any ResponseBodyWriter, reached: Int64, stoppedByLimit: Bool) async throws {
        guard query.feed == .continuous || query.feed == .longpoll else { return }
        let end = try await ChangesFeedEnd.of(database, query, since: reached, reached: reached,
                                              stoppedByLimit: stoppedByLimit, lastSent: reached)
        try await writer.write(query.feed == .continuous ? end.continuousLine : end.emptyBody)
    }
}
