import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `GET|POST /{db}/_design/{ddoc}/_view/{view}` (CouchDB API Reference › Design
/// Documents › Views): map rows in collation order, or reduced, grouped or not;
/// rows framed as CouchDB frames them.
enum ViewHandlers {
    static func query(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let view = try await definition(context, database)
        var body: JSONObject?
        if context.request.method == "POST" {
            body = try await context.jsonBody().object()
            // couch_mrview_util:get_view_keys/1 reads a POST body's `keys` first.
            if let keys = body?["keys"], keys.arrayValue == nil { throw CouchError.badRequest("`keys` member must be an array.") }
        }
        let bytes = try await run(view, try ViewQuery(context.query, body: body), database)
        return JSONResponse.make(status: 200, bytes: bytes + Array("\n".utf8))
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

    /// One query's response body (without the final newline).
    static func run(_ requested: RequestedView, _ query: ViewQuery, _ database: Database) async throws -> [UInt8] {
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
        try await ViewIndexes.compile(view, requested.code, requested.service)
        let index = ViewIndexes.keyIndex(view, requested.code, requested.service)
        switch query.update {
        case "true" where !database.isCurrent(index):
            do {
                try await database.refreshIndexes(await refreshed(index, requested))
            } catch let error as JavaScriptError {
                // A map function stopped by its time or memory limit: the index stays where it was.
                throw CouchError(javaScript: error, in: .map)
            } catch {
                // A failed step (SQLite, say) leaves the index where it was: say which and why;
                // the next query retries rather than failing for good.
                throw database.indexFailure(index.signature)?.couchError(index: "\(view.designDocument)/_view/\(view.name)")
                    ?? error
            }
        case "lazy" where !database.isCurrent(index):
            Task.detached { try? await database.refreshIndexes(await refreshed(index, requested)) }
        default: break
        }
        let ranges = try query.ranges(collation: view.collation)
        if reduce {
            return try await reduced(database, index, requested, query, ranges)
        }
        // fabric_view_map reverses `keys` for a descending map query (view_multi_key_design_test.exs
        // "dir descending works"); a reduce keeps their order.
        let ordered = query.descending && query.isMultiKey ? Array(ranges.reversed()) : ranges
        return try await mapped(database, index, query, ordered, view.collation)
    }

    /// `index` and its design document's other views' (CouchDB updates them together;
    /// asked only when `index` is behind, so a built view's queries pay for none of it).
    private static func refreshed(_ index: KeyIndex, _ requested: RequestedView) async -> [KeyIndex] {
        var indexes = [index]
        var seen: Set<String> = [index.signature]
        for sibling in await ViewIndexes.siblings(of: requested.view, requested.code, requested.service)
        where seen.insert(sibling.signature).inserted {
            indexes.append(sibling)
        }
        return indexes
    }

    // MARK: Map rows

    private static func mapped(_ database: Database, _ index: KeyIndex, _ query: ViewQuery,
                               _ ranges: [KeyRange], _ collation: KeyCollation) async throws -> [UInt8] {
        if !query.includeDocs {
            do { return try await mappedEntries(database, index, query, ranges, collation) } catch is KeyWithoutDocumentID {}
        }
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

    private static func writeRow(_ row: KeyIndexRow, _ database: Database, _ query: ViewQuery,
                                 attachments: [StoredAttachment], to out: inout [UInt8]) async throws {
        let pair = Self.keyAndValue(row)
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONWriter.writeString(row.id, to: &out)
        out.append(contentsOf: #","key":"#.utf8)
        JSONWriter.write(pair[0], to: &out)
        out.append(contentsOf: #","value":"#.utf8)
        JSONWriter.write(pair[1], to: &out)
        if query.includeDocs {
            out.append(contentsOf: #","doc":"#.utf8)
            // A value with an `_id` links another document (docs.couchdb.org "Joins With Views").
            if let linked = pair[1]["_id"]?.stringValue {
                try await writeLinked(linked, rev: pair[1]["_rev"], database, to: &out)
            } else {
                var writer = DocumentWriter(id: row.id, rev: row.rev.description, body: row.body)
                if query.conflicts, let tree = try await database.document(id: row.id, revisions: .none)?.tree,
                   !tree.conflicts.isEmpty {
                    writer.append("_conflicts", .array(tree.conflicts.map { .string($0.description) }))
                }
                if !attachments.isEmpty {
                    var forms: [String: AttachmentJSON.Form] = [:]
                    if query.attachments {
                        for attachment in attachments { forms[attachment.name] = .data(try await database.attachmentData(attachment)) }
                    }
                    writer.append("_attachments", AttachmentJSON.object(attachments, forms: forms,
                                                                        showEncoding: query.attEncodingInfo))
                }
                writer.write(to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A linked document as a plain read gives it, with its attachments' stubs: the winner,
    /// or the revision the value's `_rev` names (couch_mrview_util:maybe_load_doc); null
    /// when missing or deleted.
    private static func writeLinked(_ id: String, rev: JSONValue?, _ database: Database,
                                    to out: inout [UInt8]) async throws {
        var found: StoredRevision?
        if let rev {
            guard let text = rev.stringValue, let wanted = RevisionID(text) else {
                throw CouchError.badRequest("Invalid rev format")
            }
            found = try await database.document(id: id, revs: [wanted])?.revisions.first
        } else {
            found = try await database.winner(id: id)
        }
        guard let doc = found, !doc.isDeleted, let body = doc.body else {
            out.append(contentsOf: "null".utf8)
            return
        }
        var writer = DocumentWriter(id: id, rev: doc.rev.description, body: body)
        let stubs = rev == nil ? try await database.winnerAttachments([(id, doc.rev)])[id] ?? [] : doc.attachments
        if !stubs.isEmpty {
            writer.append("_attachments", AttachmentJSON.object(stubs, forms: [:], showEncoding: false))
        }
        writer.write(to: &out)
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
