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
        return try await respond(context, database, query: postedQuery(context))
    }

    /// A POST's query: the body's members are parameters as in the query string, which
    /// wins where both name one (couch_mrview_http:parse_body_and_query/3); `keys` come
    /// from the body unless the query string has its own.
    static func postedQuery(_ context: RequestContext) async throws -> AllDocsQuery {
        let body = try await context.jsonBody().object()
        let fromBody = body.compactMap { member -> (name: String, value: String)? in
            guard member.key != "keys" else { return nil }
            // Keys as the JSON text a query string holds; other strings (ids, `stale`) as they are.
            let isJSON = QueryOptions.jsonViewParameters.contains(member.key)
            return (member.key, isJSON ? JSONWriter.string(member.value)
                                       : member.value.stringValue ?? JSONWriter.string(member.value))
        }
        let options = QueryOptions(items: context.query.items + fromBody)
        try options.checkViewParameters()
        var query = try parseQuery(options)
        if !context.query.contains("keys"), let keys = body["keys"] {
            guard let list = keys.arrayValue else { throw CouchError.badRequest("`keys` body member must be an array.") }
            query.keys = list.map { $0.stringValue ?? JSONWriter.string($0) }
        }
        return query
    }

    /// `_design_docs`: `_all_docs` restricted to the `_design/` id range.
    static func designDocs(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        var query = try parseQuery(context.query)
        if query.keys == nil {
            let low = max(query.startKey ?? "_design/", "_design/")
            let high = min(query.endKey ?? "_design0", "_design0")
            (query.startKey, query.endKey) = query.descending ? (high, low) : (low, high)
        }
        // `_users`' design documents are for its admins: others get `"doc": null`, as
        // CouchDB 3.4.3 answers them (its after_doc_read refuses the read).
        let hidesDocs = query.includeBodies && UsersDatabaseReadRule.isUsersDatabase(database, context)
            ? try await !UsersDatabaseReadRule.isAdmin(context, database) : false
        return try await respond(context, database, query: query, hidingDocs: hidesDocs)
    }

    /// `{"keys": [...]}` from a POST body, nil when the body has none.
    static func postedKeys(_ context: RequestContext) async throws -> [String]? {
        let body = try await context.jsonBody().object()
        guard let keys = body["keys"] else { return nil }
        guard let list = keys.arrayValue else { throw CouchError.badRequest("`keys` body member must be an array.") }
        return list.map { $0.stringValue ?? JSONWriter.string($0) }
    }

    static func parseQuery(_ q: QueryOptions) throws -> AllDocsQuery {
        var query = AllDocsQuery()
        query.descending = try q.bool("descending")
        query.inclusiveEnd = try q.bool("inclusive_end", default: true)
        query.limit = try q.nonNegativeInt("limit")
        query.skip = try q.nonNegativeInt("skip") ?? 0
        query.includeBodies = try q.bool("include_docs")
        query.includeConflicts = try q.bool("conflicts")
        _ = try q.bool("update_seq")
        let (start, end) = (try q.json("startkey") ?? q.json("start_key"), try q.json("endkey") ?? q.json("end_key"))
        query.startKey = idBound(start, isLow: !query.descending) ?? q["startkey_docid"] ?? q["start_key_doc_id"]
        query.endKey = idBound(end, isLow: query.descending) ?? q["endkey_docid"] ?? q["end_key_doc_id"]
        if let key = try q.json("key") {
            let id = idBound(key, isLow: false)
            (query.startKey, query.endKey, query.inclusiveEnd) = (id, id, true)
        }
        if let keys = try q.json("keys") {
            guard let list = keys.arrayValue else { throw CouchError.badRequest("`keys` member must be an array.") }
            query.keys = list.map { $0.stringValue ?? JSONWriter.string($0) }
        }
        return query
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
        let result = try await database.allDocs(query)
        var out: [UInt8] = Array(#"{"total_rows":"#.utf8)
        out.append(contentsOf: String(result.totalRows).utf8)
        out.append(contentsOf: #","offset":"#.utf8)
        out.append(contentsOf: (query.keys == nil ? String(result.offset) : "null").utf8)
        if try context.query.bool("update_seq") {
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
        out.append(contentsOf: (result.rows.isEmpty ? "\r\n\r\n]}\n" : "\r\n]}\n").utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }

    private static func writeRow(_ row: AllDocsRow, to out: inout [UInt8], includeDocs: Bool, hidingDocs: Bool,
                                 attachments: [StoredAttachment]) {
        guard let rev = row.rev else {
            out.append(contentsOf: #"{"key":"#.utf8)
            JSONWriter.writeString(row.id, to: &out)
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
