import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET`/`POST /{db}/_all_docs` and `/{db}/_design_docs`
/// (CouchDB API Reference › Databases › /{db}/_all_docs).
enum AllDocsHandlers {
    static func get(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try UsersDatabaseReadRule.requireListing(context, database)
        try ReplicatorReadRule.requireListing(context, database)
        try context.query.checkViewParameters()
        return try await respond(context, database, query: parseQuery(context.query))
    }

    static func post(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try UsersDatabaseReadRule.requireListing(context, database)
        try ReplicatorReadRule.requireListing(context, database)
        return try await respond(context, database, query: requestQuery(context))
    }

    /// `GET`/`POST /{db}/_design_docs`: `_all_docs` restricted to the `_design/` id range.
    /// Its `total_rows` counts design documents only, its `offset` is `_all_docs`' own capped
    /// at that (couch_mrview:get_total_rows/2; fabric_view_all_docs' `min(Total, Offset + Skip)`),
    /// and `keys` outside the range are left out, as CouchDB's design namespace drops them.
    static func designDocs(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let query = designQuery(try await requestQuery(context))
        return try await respond(context, database, query: query, hidingDocs: hidesDesignDocs(query, context, database))
    }

    /// `query` over the design documents only.
    static func designQuery(_ query: AllDocsQuery) -> AllDocsQuery {
        var query = query
        if let keys = query.keys {
            query.keys = keys.filter { $0.hasPrefix("_design/") }
        } else {
            narrowToDesignDocuments(&query)
        }
        query.countsDesignDocuments = true
        return query
    }

    /// `_users`' design documents are for its admins: others get `"doc": null`, as
    /// CouchDB 3.4.3 answers them (its after_doc_read refuses the read).
    static func hidesDesignDocs(_ query: AllDocsQuery, _ context: RequestContext, _ database: Database) async throws -> Bool {
        query.includeBodies && UsersDatabaseReadRule.isUsersDatabase(database, context)
            ? try await !UsersDatabaseReadRule.isAdmin(context, database) : false
    }

    /// The caller's range cut to the design documents' ids, `_design/` up to `_design0`
    /// (which is no design document's id: an end there is exclusive), in the read's direction.
    private static func narrowToDesignDocuments(_ query: inout AllDocsQuery) {
        let (low, high) = ("_design/", "_design0")
        if query.descending {
            query.startKey = min(query.startKey ?? high, high)
            query.endKey = max(query.endKey ?? low, low)
        } else {
            query.startKey = max(query.startKey ?? low, low)
            if let end = query.endKey, end < high {
                query.endKey = end
            } else {
                (query.endKey, query.inclusiveEnd) = (high, false)
            }
        }
    }

    /// A GET's options from its query string; a POST's from its JSON body's members with
    /// the query string's over them (couch_mrview_http:parse_body_and_query/3 parses the
    /// body, then the query string), `keys` being the body's.
    static func requestQuery(_ context: RequestContext) async throws -> AllDocsQuery {
        guard context.request.method == "POST" else { return try parseQuery(context.query) }
        return try query(context.query, over: try await context.jsonBody().object())
    }

    /// The options of `body` (a POST body, or one of `queries`) with `options` over them.
    /// In one of `queries` (`isQueriesItem`), `keys` is a view parameter like the others
    /// (couch_mrview_http:parse_param/4): one key is a `key=` range, with its `offset`, and
    /// a `keys` that is no list is 400 query_parse_error, as CouchDB 3.4.3 answers.
    static func query(_ options: QueryOptions, over body: JSONObject, isQueriesItem: Bool = false) throws -> AllDocsQuery {
        var body = body
        if isQueriesItem, let keys = body["keys"] {
            guard let list = keys.arrayValue else { throw CouchError.queryParseError("`keys` must be an array of strings.") }
            if list.count == 1 { body = oneKeyAsRange(body, list[0]) }
        }
        var items = options.items  // looked up first-wins: the query string's win
        for member in body.members where member.key != "keys" {
            items.append((member.key, try bodyOptionText(member.key, member.value)))
        }
        let merged = QueryOptions(items: items)
        try merged.checkViewParameters()
        let keys: [JSONValue]?
        if let bodyKeys = body["keys"] {
            guard let list = bodyKeys.arrayValue else { throw CouchError.badRequest("`keys` body member must be an array.") }
            keys = list
        } else {
            keys = try queryKeys(options)
        }
        let bounds = try AllDocsKeyBounds(try options.keyBounds(after: body), keys: keys, notAList: Self.keysNotAList)
        return try parseQuery(merged, bounds: bounds)
    }

    private static let keysNotAList = CouchError.badRequest("`keys` parameter must be an array.")

    /// The query string's `keys`, the first if it has several.
    private static func queryKeys(_ q: QueryOptions) throws -> [JSONValue]? {
        guard let keys = try q.json("keys") else { return nil }
        guard let list = keys.arrayValue else { throw keysNotAList }
        return list
    }


    /// A body member as a query string would spell it. JSON-valued options stay JSON text;
    /// booleans and counts are read as decoded values first, so a bad one is refused in
    /// CouchDB's words for a body (`DecodedParameter`).
    private static func bodyOptionText(_ name: String, _ value: JSONValue) throws -> String {
        if QueryOptions.jsonViewParameters.contains(name) { return JSONWriter.string(value) }
        if QueryOptions.booleanViewParameters.contains(name) { return String(try DecodedParameter.bool(value)) }
        if QueryOptions.countViewParameters.contains(name) { return String(try DecodedParameter.nonNegativeInt(value)) }
        return value.stringValue ?? JSONWriter.string(value)
    }

    /// `body` with its one-element `keys` turned into `start_key` and `end_key`.
    private static func oneKeyAsRange(_ body: JSONObject, _ key: JSONValue) -> JSONObject {
        var members = body.members.filter { $0.key != "keys" }
        members.append(.init(key: "start_key", value: key))
        members.append(.init(key: "end_key", value: key))
        return JSONObject(members: members)
    }

    /// `{"keys": [...]}` from a POST body, nil when the body has none.
    static func postedKeys(_ context: RequestContext) async throws -> [String]? {
        try postedKeys(try await context.jsonBody().object())
    }

    static func postedKeys(_ body: JSONObject) throws -> [String]? {
        guard let keys = body["keys"] else { return nil }
        guard let list = keys.arrayValue else { throw CouchError.badRequest("`keys` body member must be an array.") }
        return list.map(lookupID)
    }

    /// - Parameter bounds: the key bounds, when the caller has read them (a POST's); else
    ///   they are `q`'s, in its order.
    static func parseQuery(_ q: QueryOptions, bounds: AllDocsKeyBounds? = nil) throws -> AllDocsQuery {
        var query = AllDocsQuery()
        query.descending = try q.bool("descending")
        query.inclusiveEnd = try q.bool("inclusive_end", default: true)
        query.limit = try q.nonNegativeInt("limit")
        query.skip = try q.nonNegativeInt("skip") ?? 0
        query.includeBodies = try q.bool("include_docs")
        query.includeConflicts = try q.bool("conflicts")
        query.updateSeq = try q.bool("update_seq")
        try checkMapOnly(q)
        let bounds = try bounds ?? AllDocsKeyBounds(try q.keyBounds(after: nil), keys: queryKeys(q),
                                                      notAList: Self.keysNotAList)
        query.startKey = idBound(bounds.start, isLow: !query.descending) ?? q["startkey_docid"] ?? q["start_key_doc_id"]
        query.endKey = idBound(bounds.end, isLow: query.descending) ?? q["endkey_docid"] ?? q["end_key_doc_id"]
        query.keys = bounds.keys?.map(lookupID)
        return query
    }

    /// What `_all_docs` refuses as a view without reduce does (couch_mrview_http:parse_params,
    /// couch_mrview_util:validate_args/1).
    private static func checkMapOnly(_ q: QueryOptions) throws {
        if let stale = q["stale"], !["ok", "update_after"].contains(stale) {
            throw CouchError.queryParseError("Invalid value for `stale`.")
        }
        if let update = q["update"], !["true", "false", "lazy"].contains(update) {
            throw CouchError.queryParseError("Invalid value for `update`.")
        }
        if q.contains("reduce"), try q.bool("reduce") {
            throw CouchError.queryParseError("Reduce is invalid for map-only views.")
        }
        let grouped = try q.bool("group")
        if grouped || q.contains("group_level") {
            throw CouchError.queryParseError("Invalid use of grouping on a map view.")
        }
    }

    /// An id range bound from a JSON key. `_all_docs` collates raw (Erlang's term order),
    /// where every number, atom, object and array sorts before every string: such a key
    /// is no bound at the low end, and at the high end admits nothing ("" is below every
    /// id, none being empty). CouchDB answers 200 for it, not an error.
    private static func idBound(_ key: JSONValue?, isLow: Bool) -> String? {
        guard let key else { return nil }
        if let id = key.stringValue { return id }
        return isLow ? nil : ""
    }

    static func respond(_ context: RequestContext, _ database: Database, query: AllDocsQuery,
                        hidingDocs: Bool = false) async throws -> HTTPResponse {
        JSONResponse.make(status: 200, bytes: try await answer(database, query: query, hidingDocs: hidingDocs) + [0x0A])
    }

    /// One answer's body (without the final newline).
    static func answer(_ database: Database, query: AllDocsQuery, hidingDocs: Bool = false) async throws -> [UInt8] {
        let result = try await database.allDocs(query)
        let total = query.countsDesignDocuments ? result.designDocuments : result.totalRows
        var out: [UInt8] = Array(#"{"total_rows":"#.utf8)
        out.append(contentsOf: String(total).utf8)
        out.append(contentsOf: #","offset":"#.utf8)
        out.append(contentsOf: (query.keys == nil ? String(min(total, result.offset)) : "null").utf8)
        if query.updateSeq {
            out.append(contentsOf: #","update_seq":"#.utf8)
            SequenceToken.write(result.updateSeq, to: &out)
        }
        out.append(contentsOf: #","rows":["#.utf8)
        // Documents come with their attachments' stubs, as a single GET shows them.
        let stubs = query.includeBodies ? try await database.winnerAttachments(result.rows.compactMap { row in
            row.rev.flatMap { row.body == nil || row.isDeleted ? nil : (row.id, $0) }
        }) : [:]
        for (i, row) in result.rows.enumerated() {
            out.append(contentsOf: i == 0 ? "\r\n".utf8 : ",\r\n".utf8)
            writeRow(row, to: &out, includeDocs: query.includeBodies, hidingDocs: hidingDocs,
                     attachments: stubs[row.id] ?? [])
        }
        // CouchDB's row framing: `[\r\n`, rows joined by `,\r\n`, `\r\n]}`; empty too.
        out.append(contentsOf: (result.rows.isEmpty ? "\r\n\r\n]}" : "\r\n]}").utf8)
        return out
    }

    private static func writeRow(_ row: AllDocsRow, to out: inout [UInt8], includeDocs: Bool, hidingDocs: Bool,
                                 attachments: [StoredAttachment]) {
        guard let rev = row.rev else {
            out.append(contentsOf: #"{"key":"#.utf8)
            writeMissingKey(row.id, to: &out)
            out.append(contentsOf: #","error":"not_found"}"#.utf8)
            return
        }
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONWriter.writeString(row.id, to: &out)
        out.append(contentsOf: #","key":"#.utf8)
        JSONWriter.writeString(row.id, to: &out)
        out.append(contentsOf: #","value":{"rev":"#.utf8)
        JSONWriter.writeString(rev.description, to: &out)
        out.append(contentsOf: (row.isDeleted ? #","deleted":true}"# : "}").utf8)
        if includeDocs {
            out.append(contentsOf: #","doc":"#.utf8)
            if row.isDeleted || row.body == nil || hidingDocs {
                out.append(contentsOf: "null".utf8)
            } else {
                var writer = DocumentWriter(id: row.id, rev: rev.description, body: row.body ?? [])
                if !row.conflicts.isEmpty {
                    writer.append("_conflicts", .array(row.conflicts.map { .string($0.description) }))
                }
                if !attachments.isEmpty {
                    writer.append("_attachments", AttachmentJSON.object(attachments, forms: [:], showEncoding: false))
                }
                writer.write(to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}
