import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `GET|POST /{db}/_design/{ddoc}/_view/{view}` (CouchDB API Reference › Design
/// Documents › Views): map rows in collation order, or reduced, grouped or not;
/// rows framed as CouchDB frames them.
enum ViewHandlers {
    /// A query of a view. A `GET` starts on the event loop's thread (`LightRequest`): a query that reads a
    /// current index's first page is answered there, anything else moves to the pool
    /// (`LightViewQuery`).
    static func query(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let isOnLoop = LightRequest.isLight(method: context.request.method, target: context.request.target)
        if isOnLoop, !isDesignDocumentKept(context, database) {
            return try await LightRequest.offLoop(true) { try await answer(context, database, isOnLoop: false) }
        }
        return try await answer(context, database, isOnLoop: isOnLoop)
    }

    private static func answer(_ context: RequestContext, _ database: Database, isOnLoop: Bool) async throws -> HTTPResponse {
        let view = try await definition(context, database)
        var body: JSONObject?
        if context.request.method == "POST" {
            body = try await context.jsonBody().object()
            // couch_mrview_util:get_view_keys/1 reads a POST body's `keys` first.
            if let keys = body?["keys"], keys.arrayValue == nil { throw CouchError.badRequest("`keys` member must be an array.") }
        }
        let query = try ViewQuery(context.query, body: body)
        var bytes: [UInt8]
        if isOnLoop, !staysOnLoop(query, view) {
            bytes = try await LightRequest.offLoop(true) { try await run(view, query, database) }
        } else {
            bytes = try await run(view, query, database, isOnLoop: isOnLoop)
        }
        bytes.append(UInt8(ascii: "\n"))
        return JSONResponse.make(status: 200, bytes: bytes)
    }

    /// The view the request names: 404 `missing` without its design document,
    /// `missing_named_view` without the view.
    static func definition(_ context: RequestContext, _ database: Database) async throws -> RequestedView {
        guard let ddocName = context.parameters[.ddoc], let viewName = context.parameters[.view] else {
            throw CouchError.notFound()
        }
        return try await definition(context, ddocName, viewName, database)
    }

    /// A view and the design document it is in, whose views are refreshed together.
    struct RequestedView {
        let view: ViewDefinition
        let code: DesignCode
        let service: JavaScriptService
    }

    static func definition(_ context: RequestContext, _ ddocName: String, _ viewName: String,
                           _ database: Database) async throws -> RequestedView {
        try await definition(ddocName, viewName, database, service: context.node.javaScript)
    }

    /// The same, for a caller without a request (the embedding library: `EmbeddedViews`).
    static func definition(_ ddocName: String, _ viewName: String, _ database: Database,
                           service: JavaScriptService) async throws -> RequestedView {
        let ddocID = "_design/" + ddocName
        let design = try await DesignDocuments.revision(ddocID, in: database)
        if design.body["views"]?[viewName]?.objectValue != nil, let language = design.code(database).unknownLanguage,
           language != "query" {
            throw CouchError(500, "unknown_query_language", language)
        }
        guard let view = ViewDefinitions.named(viewName, in: design) else {
            throw CouchError.notFound("missing_named_view")
        }
        return RequestedView(view: view, code: design.code(database), service: service)
    }

    /// One query's response body (without the final newline). `isOnLoop`: on the event
    /// loop's thread, where only `LightViewQuery`'s queries come; a refresh and rows past
    /// the first page then run on the pool.
    static func run(_ requested: RequestedView, _ query: ViewQuery, _ database: Database,
                    isOnLoop: Bool = false) async throws -> [UInt8] {
        let view = requested.view
        if let message = view.validateReduce() { throw CouchError(400, "invalid_design_doc", message) }
        let reduce = query.reduce ?? (view.reduce != nil)
        if reduce && view.reduce == nil, query.reduce == true {
            throw CouchError.queryParseError("Reduce is invalid for map-only views.")
        }
        if !reduce, query.group || query.groupLevel != nil {
            throw CouchError.queryParseError("Invalid use of grouping on a map view.")
        }
        // Any `keys` but exactly one, even none, needs exact grouping (couch_mrview_util:validate_args/1).
        if reduce, let keys = query.keys, keys.count != 1, !(query.group && query.groupLevel == nil) {
            throw CouchError.queryParseError("Multi-key fetches for reduce views must use `group=true`")
        }
        if reduce, query.includeDocs {
            throw CouchError.queryParseError("`include_docs` is invalid for reduce")
        }
        // On the loop, `staysOnLoop` found the functions compiled already.
        if !isOnLoop { try await ViewIndexes.compile(view, requested.code, requested.service) }
        let index = ViewIndexes.keyIndex(view, requested.code, requested.service)
        switch query.update {
        case "true" where !database.isCurrent(index):
            // A build: never on the loop's thread.
            try await LightRequest.offLoop(isOnLoop) { try await refresh(index, requested, database) }
        case "lazy" where !database.isCurrent(index):
            Task.detached { try? await database.refreshIndexes(await refreshed(requested)) }
        default: break
        }
        let ranges = try query.ranges(collation: view.collation)
        if reduce {
            return try await reduced(database, index, requested, query, ranges)
        }
        // fabric_view_map reverses `keys` for a descending map query (view_multi_key_design_test.exs
        // "dir descending works"); a reduce keeps their order.
        let ordered = query.descending && query.isMultiKey ? Array(ranges.reversed()) : ranges
        return try await mapped(database, index, query, ordered, view.collation, isOnLoop: isOnLoop)
    }

    /// Brings `index` (and its siblings) up to date.
    private static func refresh(_ index: KeyIndex, _ requested: RequestedView, _ database: Database) async throws {
        let view = requested.view
        do {
            try await database.refreshIndexes(await refreshed(requested))
        } catch let error as JavaScriptError {
            // A map function stopped by its time or memory limit: the index stays where it was.
            throw CouchError(javaScript: error, in: .map)
        } catch {
            // A failed step (SQLite, say) leaves the index where it was: say which and why;
            // the next query retries rather than failing for good.
            throw database.indexFailure(index.signature)?.couchError(index: "\(view.designDocument)/_view/\(view.name)")
                ?? error
        }
    }

    /// `index` and its design document's other views' (CouchDB updates them together;
    /// asked only when `index` is behind, so a built view's queries pay for none of it),
    /// mapped by one call a batch (`ViewIndexes.keyIndexes`).
    private static func refreshed(_ requested: RequestedView) async -> [KeyIndex] {
        let views = await ViewIndexes.siblings(of: requested.view, requested.code, requested.service)
        return ViewIndexes.keyIndexes(views, requested.code, requested.service)
    }

    // MARK: Map rows

    private static func mapped(_ database: Database, _ index: KeyIndex, _ query: ViewQuery,
                               _ ranges: [KeyRange], _ collation: KeyCollation, isOnLoop: Bool = false) async throws -> [UInt8] {
        if !query.includeDocs {
            do {
                return try await mappedEntries(database, index, query, ranges, collation, isOnLoop: isOnLoop)
            } catch is KeyWithoutDocumentID {}
        }
        // The join: a read per page of up to 1,000 rows with their documents, for the pool.
        return try await LightRequest.offLoop(isOnLoop) { try await joined(database, index, query, ranges) }
    }

    /// Map rows read with their documents (`include_docs`; or keys without a document id).
    private static func joined(_ database: Database, _ index: KeyIndex, _ query: ViewQuery,
                               _ ranges: [KeyRange]) async throws -> [UInt8] {
        let first = ranges.first ?? KeyRange()  // `keys: []` reads nothing
        var out = Array("{".utf8)
        // The first page comes with the counts, in one read (`Database.indexCountsAndPage`).
        var firstPage: [KeyIndexRow]?
        var counts: (total: Int, before: Int)?
        if query.sorted {
            let bound = query.descending ? first.upper : first.lower
            if ranges.isEmpty {
                counts = try await database.indexCounts(index, before: bound)
            } else {
                let read = try await database.indexCountsAndPage(
                    index, before: bound, range: first, descending: query.descending,
                    limit: pageSize(query, written: 0, toSkip: query.skip), bodies: query.includeDocs,
                    point: isPoint(query, ranges))
                counts = (read.total, read.before)
                firstPage = read.page
            }
        }
        try await writeHead(counts, query, first, database, index, to: &out)
        var written = 0
        var toSkip = query.skip
        read: for range in ranges {
            var after: [UInt8]?
            while written < query.limit {
                let pageSize = pageSize(query, written: written, toSkip: toSkip)
                let page: [KeyIndexRow]
                if let prefetched = firstPage {
                    page = prefetched
                    firstPage = nil
                } else {
                    page = try await database.indexPage(index, range: range, descending: query.descending, after: after,
                                                        limit: pageSize, bodies: query.includeDocs)
                }
                // Documents come with their attachments' stubs, as a single GET shows them.
                let stubs = query.includeDocs ? try await database.winnerAttachments(page.map { ($0.id, $0.rev) }) : [:]
                for row in page {
                    after = row.key
                    if toSkip > 0 {
                        toSkip -= 1
                        continue
                    }
                    out.append(contentsOf: written == 0 ? Array("\r\n".utf8) : Array(",\r\n".utf8))
                    try await writeRow(row, database, query, attachments: stubs[row.id] ?? [], to: &out)
                    written += 1
                    if written >= query.limit { break read }
                }
                if page.count < pageSize { break }
            }
        }
        out.append(contentsOf: (written == 0 ? "\r\n\r\n]}" : "\r\n]}").utf8)
        return out
    }

    /// `total_rows` and `offset` (when sorted), `update_seq` (when asked), then the rows' opening.
    /// `update_seq` is the sequence `index` has caught up to, as couch_mrview answers it (with
    /// stale=ok after a write, the one before it; view_update_seq_test.exs), not the database's.
    static func writeHead(_ counts: (total: Int, before: Int)?, _ query: ViewQuery, _ first: KeyRange,
                          _ database: Database, _ index: KeyIndex, to out: inout [UInt8]) async throws {
        if let counts {
            out.append(contentsOf: #""total_rows":"#.utf8)
            out.append(contentsOf: String(counts.total).utf8)
            // With `keys`, the rows before the first key, as couch_mrview counts them (unlike `_all_docs`' null).
            let offset = query.descending ? (first.upper == nil ? 0 : counts.total - counts.before) : counts.before
            out.append(contentsOf: #","offset":"#.utf8)
            // `skip` may be as large as Int.max (CouchDB takes any integer): no overflow, the offset stops at the total.
            let skipped = offset.addingReportingOverflow(query.skip)
            out.append(contentsOf: String(skipped.overflow ? counts.total : min(counts.total, skipped.partialValue)).utf8)
        }
        if query.updateSeq {
            out.append(contentsOf: (query.sorted ? #","update_seq":"# : #""update_seq":"#).utf8)
            SequenceToken.write(try await database.indexedSequence(index), to: &out)
        }
        out.append(contentsOf: ((query.sorted || query.updateSeq) ? #","rows":["# : #""rows":["#).utf8)
    }

    /// A query of one key reads a few rows: placed as a point read (`ReaderPool.place`).
    static func isPoint(_ query: ViewQuery, _ ranges: [KeyRange]) -> Bool {
        ranges.count == 1 && query.keys?.count == 1
    }

    /// Rows read per page: what is left to write and skip, within 16 and 1,000.
    static func pageSize(_ query: ViewQuery, written: Int, toSkip: Int) -> Int {
        min(1_000, max(16, min(query.limit - written, 1_000) + min(toSkip, 1_000)))
    }

    /// The `[key, value]` stored with a row (`ViewIndexes.keyIndex`).
    static func keyAndValue(_ row: KeyIndexRow) -> [JSONValue] { keyAndValue(row.value) }

    static func keyAndValue(_ value: [UInt8]) -> [JSONValue] {
        guard let pair = (try? JSONReader.parse(value))?.arrayValue, pair.count == 2 else { return [.null, .null] }
        return pair
    }

    /// The key a row groups under: the whole key, or an array key's first `level` elements.
    static func groupKey(_ key: JSONValue, level: Int?) -> JSONValue {
        guard let level, case .array(let elements) = key else { return key }
        return .array(Array(elements.prefix(level)))
    }
}
