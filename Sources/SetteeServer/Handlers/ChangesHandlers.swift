import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET`/`POST /{db}/_changes` (CouchDB API Reference › Databases › /{db}/_changes).
enum ChangesHandlers {
    static func changes(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let query = try await ChangesQuery(context)
        guard query.feed == "normal" else {
            throw CouchError.badRequest("Supported `feed` types: normal")
        }
        let updateSeq = try await database.updateSequence()
        let since = query.since ?? updateSeq
        let changes = try await database.changes(since: since, limit: query.limit, descending: query.descending,
                                                 docIDs: query.docIDs)
        var out: [UInt8] = Array(#"{"results":["#.utf8)
        for (i, change) in changes.enumerated() {
            out.append(contentsOf: (i == 0 ? "\n" : ",\n").utf8)
            try await write(change, query: query, database: database, to: &out)
        }
        let limited = query.limit.map { changes.count >= $0 } ?? false
        let lastSeq = (limited || query.descending) ? (changes.last?.sequence ?? since) : max(updateSeq, since)
        var pending = 0
        if limited && !query.descending, let last = changes.last {
            pending = try await database.changes(since: last.sequence, limit: nil, descending: false,
                                                 docIDs: query.docIDs).count
        }
        out.append(contentsOf: "\n],\n\"last_seq\":\(lastSeq),\"pending\":\(pending)}\n".utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }

    /// One result line: `{"seq":..,"id":..,"changes":[{"rev":..}],"deleted":true,"doc":{..}}`.
    static func write(_ change: Change, query: ChangesQuery, database: Database, to out: inout [UInt8]) async throws {
        out.append(contentsOf: "{\"seq\":\(change.sequence),\"id\":".utf8)
        JSONWriter.writeString(change.id, to: &out)
        out.append(contentsOf: #","changes":["#.utf8)
        let revs = query.allDocsStyle ? change.leaves : Array(change.leaves.prefix(1))
        for (i, rev) in revs.enumerated() {
            out.append(contentsOf: (i == 0 ? #"{"rev":"# : #",{"rev":"#).utf8)
            JSONWriter.writeString(rev.description, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if change.isDeleted { out.append(contentsOf: #","deleted":true"#.utf8) }
        if query.includeDocs {
            out.append(contentsOf: #","doc":"#.utf8)
            if let document = try await database.document(id: change.id, revisions: .winner),
               let revision = document.revisions.first {
                var options = DocumentOptions()
                options.conflicts = query.conflicts
                DocumentHandlers.render(document, revision, options: options).write(to: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// The parameters of a `_changes` request, validated as CouchDB validates them.
struct ChangesQuery {
    var feed = "normal"
    /// Nil for `since=now`.
    var since: Int64? = 0
    var limit: Int?
    var descending = false
    var includeDocs = false
    var conflicts = false
    var allDocsStyle = false
    var docIDs: Set<String>?

    init(_ context: RequestContext) async throws {
        let q = context.query
        feed = q["feed"] ?? "normal"
        guard ["normal", "longpoll", "continuous", "eventsource"].contains(feed) else {
            throw CouchError.badRequest("Supported `feed` types: normal, continuous, live, longpoll, eventsource")
        }
        since = try Self.parseSince(q["since"])
        limit = try q.nonNegativeInt("limit")
        descending = try q.bool("descending")
        includeDocs = try q.bool("include_docs")
        conflicts = try q.bool("conflicts")
        switch q["style"] ?? "main_only" {
        case "main_only": allDocsStyle = false
        case "all_docs": allDocsStyle = true
        default: throw CouchError.badRequest("Supported `style` values: main_only, all_docs")
        }
        for name in ["heartbeat", "timeout"] where q[name] != nil && q[name] != "true" {
            _ = try q.nonNegativeInt(name)
        }
        if let filter = q["filter"] {
            guard filter == "_doc_ids" else {
                throw CouchError.badRequest("Settee supports the `_doc_ids` filter only")
            }
            docIDs = try await Self.docIDs(context)
        }
    }

    static func parseSince(_ text: String?) throws -> Int64? {
        guard let text else { return 0 }
        if text == "now" { return nil }
        guard let seq = Int64(text), seq >= 0 else {
            throw CouchError.badRequest("Malformed sequence supplied in 'since' parameter.")
        }
        return seq
    }

    private static func docIDs(_ context: RequestContext) async throws -> Set<String> {
        var list = try context.query.json("doc_ids")
        if list == nil, context.request.method == "POST" { list = try await context.jsonBody().value["doc_ids"] }
        guard let ids = list?.arrayValue?.compactMap(\.stringValue) else {
            throw CouchError.badRequest("`doc_ids` filter parameter is not a list of doc ids.")
        }
        return Set(ids)
    }
}
