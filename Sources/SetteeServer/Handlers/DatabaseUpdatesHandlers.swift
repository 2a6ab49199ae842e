import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET /_db_updates` (CouchDB API Reference › Server › /_db_updates): which
/// databases were created, updated or deleted, in every feed mode. Each
/// database is reported once, at its latest event, as CouchDB does.
enum DatabaseUpdatesHandlers {
    static func feed(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        let q = context.query
        let feed = q["feed"] ?? "normal"
        guard ["normal", "longpoll", "continuous", "eventsource"].contains(feed) else {
            throw CouchError.badRequest("Supported `feed` types: normal, continuous, longpoll, eventsource")
        }
        let updates = context.node.directory.updates
        // 0 by default, as CouchDB: every event still kept, not only those to come.
        let start = try ChangesQuery.parseSince(q["since"]) ?? 0
        let timeout = Duration.milliseconds(min(try q.nonNegativeInt("timeout") ?? 60_000, 60_000))
        if feed == "normal" {
            return JSONResponse.make(status: 200, bytes: normalBody(updates.updates(after: start), since: start))
        }
        let type = feed == "eventsource" ? "text/event-stream" : "application/json"
        return HTTPResponse(status: 200, headers: ["Content-Type": type], body: .stream { writer in
            try await stream(feed: feed, from: start, timeout: timeout, updates: updates, to: writer)
        })
    }

    /// Writes events as they happen until `timeout` passes (longpoll: until the first one).
    private static func stream(feed: String, from start: Int64, timeout: Duration, updates: DatabaseUpdates,
                               to writer: any ResponseBodyWriter) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var since = start
        while true {
            let page = updates.updates(after: since)
            if !page.updates.isEmpty {
                if feed == "longpoll" { return try await writer.write(normalBody(page, since: since)) }
                try await writer.write(lines(page, eventsource: feed == "eventsource"))
                since = page.lastSeq
            }
            let left = deadline - clock.now
            if left <= .zero {
                if feed == "longpoll" { try await writer.write(normalBody(page, since: since)) }
                if feed == "continuous" { try await writer.write(Array("{\"last_seq\":\(SequenceToken.json(since))}\n".utf8)) }
                return
            }
            _ = await updates.wait(after: since, timeout: left)
        }
    }

    /// Each database once, at its latest event, in event order.
    private static func latestPerDatabase(_ page: DatabaseUpdates.Page) -> [DatabaseUpdate] {
        var latest: [String: DatabaseUpdate] = [:]
        for update in page.updates { latest[update.databaseName] = update }
        return latest.values.sorted { $0.seq < $1.seq }
    }

    private static func row(_ update: DatabaseUpdate) -> JSONValue {
        ["db_name": .string(update.databaseName), "type": .string(update.kind.rawValue), "seq": .string(SequenceToken.string(update.seq))]
    }

    /// A normal or longpoll body framed as CouchDB frames it (chttpd_misc's db_updates
    /// feed): one result a line, as `_changes` — `{"results":[`, rows joined by `,\r\n`,
    /// `],` and `"last_seq"` each on a line of their own. Feed readers that go line by line
    /// (python-cloudant's `Feed`) depend on it.
    private static func normalBody(_ page: DatabaseUpdates.Page, since: Int64) -> [UInt8] {
        var out = Array("{\"results\":[\n".utf8)
        for (place, update) in latestPerDatabase(page).enumerated() {
            if place > 0 { out.append(contentsOf: ",\r\n".utf8) }
            out.append(contentsOf: JSONWriter.serialize(row(update)))
        }
        out.append(contentsOf: "\n],\n\"last_seq\":".utf8)
        out.append(contentsOf: JSONWriter.serialize(.string(SequenceToken.string(max(page.lastSeq, since)))))
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    private static func lines(_ page: DatabaseUpdates.Page, eventsource: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for update in latestPerDatabase(page) {
            if eventsource { out.append(contentsOf: "data: ".utf8) }
            out.append(contentsOf: JSONWriter.serialize(row(update)))
            out.append(0x0A)
            if eventsource { out.append(contentsOf: "id: \(SequenceToken.json(update.seq))\n\n".utf8) }
        }
        return out
    }
}
