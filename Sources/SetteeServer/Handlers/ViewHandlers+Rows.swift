import SetteeJSON
import SetteeStore

extension ViewHandlers {
    /// Map rows without their documents: the index's own rows, each row's id read back from
    /// its key (`IndexKeyEncoding.documentID`) rather than from a join of every row with the
    /// documents, which was a seek into `docs` per row (17 % of a 100-row point query's CPU).
    /// Rows are the index as it stands, as CouchDB reads its view (a `stale` read may show
    /// a document deleted since, as CouchDB's does).
    ///
    /// `isOnLoop`: on the event loop's thread, the first page is read with at most
    /// `LightViewQuery.loopRows` rows, and when more may follow, the rows are written on the pool.
    static func mappedEntries(_ database: Database, _ index: KeyIndex, _ query: ViewQuery,
                              _ ranges: [KeyRange], _ collation: KeyCollation,
                              isOnLoop: Bool = false) async throws -> [UInt8] {
        let first = ranges.first ?? KeyRange()  // `keys: []` reads nothing
        var rows = EntryRows(query: query, collation: collation)
        var counts: (total: Int, before: Int)?
        var mayNeedMorePages = true
        if query.sorted {
            let bound = query.descending ? first.upper : first.lower
            if ranges.isEmpty {
                counts = try await database.indexCounts(index, before: bound)
            } else {
                let size = pageSize(query, written: 0, toSkip: query.skip)
                let limit = isOnLoop ? LightViewQuery.firstPageLimit(size) : size
                let read = try await database.indexCountsAndEntries(
                    index, before: bound, range: first, descending: query.descending,
                    limit: limit, point: isPoint(query, ranges))
                counts = (read.total, read.before)
                rows.firstPage = (read.page, limit)
                mayNeedMorePages = LightViewQuery.mayNeedMorePages(count: read.page.count, limit: limit, query)
            }
        }
        try await writeHead(counts, query, first, database, index, to: &rows.out)
        try await LightRequest.offLoop(isOnLoop && mayNeedMorePages) {
            try await rows.write(ranges, index, database)
        }
        rows.out.append(contentsOf: (rows.written == 0 ? "\r\n\r\n]}" : "\r\n]}").utf8)
        return rows.out
    }

    /// The rows of a map answer without documents, as they are written.
    struct EntryRows {
        let query: ViewQuery
        let collation: KeyCollation
        var out = Array("{".utf8)
        /// The page read with the counts, and the limit it was read with.
        var firstPage: (page: [KeyIndexEntry], limit: Int)?
        var written = 0

        init(query: ViewQuery, collation: KeyCollation) {
            self.query = query
            self.collation = collation
        }

        /// Writes the rows of `ranges` in turn, from the first page on, until `limit`.
        mutating func write(_ ranges: [KeyRange], _ index: KeyIndex, _ database: Database) async throws {
            var toSkip = query.skip
            for range in ranges {
                var after: [UInt8]?
                while written < query.limit {
                    var size = pageSize(query, written: written, toSkip: toSkip)
                    let page: [KeyIndexEntry]
                    if let prefetched = firstPage {
                        (page, size) = prefetched
                        firstPage = nil
                    } else {
                        page = try await database.indexEntries(index, range: range, descending: query.descending,
                                                               after: after, limit: size)
                    }
                    // The first page's rows at about twice their stored size: a point query's answer
                    // grows once, not once per doubling (later pages grow it geometrically).
                    if written == 0, let row = page.first {
                        out.reserveCapacity(out.count + page.count * (row.key.count + row.value.count) * 2)
                    }
                    for entry in page {
                        after = entry.key
                        if toSkip > 0 {
                            toSkip -= 1
                            continue
                        }
                        if written > 0 { out.append(UInt8(ascii: ",")) }
                        out.append(13)  // "\r\n{"
                        out.append(10)
                        out.append(UInt8(ascii: "{"))
                        guard writeEntryRow(entry, collation: collation, to: &out) else { throw KeyWithoutDocumentID() }
                        written += 1
                        if written >= query.limit { return }
                    }
                    if page.count < size { break }
                }
            }
        }
    }

    /// A row whose key does not end as a view's does: the query is answered by the join instead.
    struct KeyWithoutDocumentID: Error {}

    /// A map row without its document, `{"id":…,"key":…,"value":…}` without its opening
    /// brace (written by the caller), its id copied from the index key
    /// (`IndexKeyEncoding.writeDocumentID`), its key and value from the stored
    /// `[key, value]` (written by `JSONWriter` when the view was built) rather than parsed
    /// and written again; parsed only if it is not that compact pair. False when the
    /// key does not end with a document id.
    static func writeEntryRow(_ entry: KeyIndexEntry, collation: KeyCollation, to out: inout [UInt8]) -> Bool {
        out.append(contentsOf: #""id":"#.utf8)
        guard IndexKeyEncoding.writeDocumentID(inViewKey: entry.key, collation: collation, asJSONStringTo: &out) else {
            return false
        }
        let copied = entry.value.withUnsafeBufferPointer { stored -> Bool in
            guard let (key, value) = JSONSpanScanner.compactPair(in: stored) else { return false }
            out.append(contentsOf: #","key":"#.utf8)
            out.append(contentsOf: stored[key])
            out.append(contentsOf: #","value":"#.utf8)
            out.append(contentsOf: stored[value])
            return true
        }
        if !copied {
            let pair = keyAndValue(entry.value)
            out.append(contentsOf: #","key":"#.utf8)
            JSONWriter.write(pair[0], to: &out)
            out.append(contentsOf: #","value":"#.utf8)
            JSONWriter.write(pair[1], to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return true
    }
}
