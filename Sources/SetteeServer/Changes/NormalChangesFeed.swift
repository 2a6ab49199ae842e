import SetteeHTTP
import SetteeStore

/// `feed=normal` in ascending order, streamed page by page.
///
/// Why stream: the whole body used to be built before the first byte went out,
/// so a `_changes` over 100k documents held a 9 MB body (and its change rows)
/// in memory, and the allocator kept that high-water mark. CouchDB streams this
/// feed chunked as well. Pages are read one after another, each after the
/// previous one's last seq, until a page comes back short: a document edited
/// while the feed runs moves to a higher seq and is met there, so no change is
/// lost between pages. Once the status line is out an error can only cut the
/// body short, as in CouchDB.
struct NormalChangesFeed: Sendable {
    /// Changes read (before any filter) per page.
    static let pageSize = 1000

    let database: Database
    let query: ChangesQuery

    func response() -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "must-revalidate"],
                     body: .stream { writer in try await run(writer) })
    }

    private func run(_ writer: any ResponseBodyWriter) async throws {
        let updateSeq = try await database.updateSequence()
        let requestedSince = query.since ?? updateSeq
        var since = requestedSince
        var emitted = 0
        var lastEmitted: Int64?
        var out: [UInt8] = Array(#"{"results":["#.utf8)
        pages: while true {
            let rows = try await database.changes(since: since, limit: Self.pageSize, descending: false,
                                                  docIDs: query.docIDs)
            for change in rows {
                if let limit = query.limit, emitted >= limit { break pages }
                if query.filter.needsDocuments, try await !query.filter.accepts(change, database: database) { continue }
                // Rows joined by `,\r\n`, as CouchDB 3 writes them (chttpd_db changes_callback).
                out.append(contentsOf: (emitted == 0 ? "\n" : ",\r\n").utf8)
                try await ChangesBatch.write(change, query: query, database: database, to: &out)
                emitted += 1
                lastEmitted = change.sequence
            }
            since = rows.last?.sequence ?? since
            if rows.count < Self.pageSize || query.limit.map({ emitted >= $0 }) == true { break }
            try await writer.write(out)
            out = []
        }
        let end = try await ChangesFeedEnd.of(database, query, since: since, reached: updateSeq,
                                              stoppedByLimit: query.limit.map { emitted >= $0 } ?? false,
                                              lastSent: lastEmitted, sent: (emitted, requestedSince))
        out.append(contentsOf: end.afterResults)
        try await writer.write(out)
    }
}
