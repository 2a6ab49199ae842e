import SetteeDocuments
import Logging
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `/{db}/_local/{id}` and `/{db}/_local_docs` (CouchDB API Reference › Local
/// (non-replicating) Documents): no history and no revision check, rev `0-N`.
enum LocalDocHandlers {
    static func get(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = localID(context)
        // CouchDB 3.4.3 opens no revision of a local document: `?rev=` is 404 once it parses.
        if let rev = context.query["rev"] {
            guard parsesAsRev(rev) else { throw CouchError.badRequest("Invalid rev format") }
            throw CouchError.notFound("missing")
        }
        guard let local = try await database.localDocument(id: id) else { throw CouchError.notFound("missing") }
        var writer = DocumentWriter(id: "_local/" + id, rev: local.rev, body: local.body)
        if context.query.flag("revs") {
            let n = local.rev.split(separator: "-").last.map(String.init) ?? "0"
            writer.append("_revisions", ["start": 0, "ids": [.string(n)]])
        }
        // CouchDB tags a local document by its rev and body (couch_httpd:doc_etag/3).
        return EntityTag.respond(context, bytes: writer.responseBody())
    }

    static func put(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        var object = try await context.jsonBody().object(orThrow: "Document must be a JSON object")
        try DocumentHandlers.mergeRevParameters(context, into: &object)
        return try await write(context, database, id: localID(context), object: object)
    }

    /// Stores `object` as `_local/<id>`: for PUT, and for `POST /{db}` of a body
    /// whose `_id` is a `_local/` id, which CouchDB accepts too.
    static func write(_ context: RequestContext, _ database: Database, id: String,
                      object: JSONObject) async throws -> HTTPResponse {
        var object = object
        // Local revs are `0-N`, not revision ids: take `_rev` out before the document rules apply.
        if let given = object["_rev"], !given.isNull, given.stringValue == nil {
            throw CouchError.badRequest("Invalid rev format")
        }
        let rev = object["_rev"]?.stringValue
        if let rev, !parsesAsRev(rev) { throw CouchError.badRequest("Invalid rev format") }
        object["_rev"] = nil
        let parsed = try DocumentHandlers.parser(context).parse(object, id: "_local/" + id, newEdits: true)
        if context.query["batch"] == "ok" {
            // As `DocumentHandlers.batched`: 202 without a rev, the write's errors dropped (CouchDB 3.4.3).
            do {
                _ = try await database.putLocal(id: id, body: parsed.update.body, rev: rev, isDeleted: parsed.update.isDeleted)
            } catch {
                context.logger.debug("Batch doc error (_local/\(id)): \(error)")
            }
            return JSONResponse.make(status: 202, ["ok": true, "id": .string("_local/" + id)])
        }
        let newRev = try await stored(database, id: id, parsed.update, rev: rev)
        // A Location as for any write; a PUT also tags the stored document as its GET will.
        let path = "/" + CouchURLEncoding.encode(context.parameters.db ?? "") + "/" + CouchURLEncoding.encode("_local/" + id)
        var headers: HTTPHeaders = ["Location": context.absoluteURL(path)]
        if context.request.method == "PUT" {
            let stored = DocumentWriter(id: "_local/" + id, rev: newRev, body: parsed.update.body)
            headers.add("ETag", EntityTag.make(bytes: stored.responseBody()))
        }
        // A PUT that deletes is 200 (chttpd_db:update_doc/4), a POST 201, as CouchDB 3.4.3 answers.
        let status = parsed.update.isDeleted && context.request.method == "PUT" ? 200 : 201
        return JSONResponse.make(status: WriteQuorum.status(status, context),
                                 ["ok": true, "id": .string("_local/" + id), "rev": .string(newRev)], headers: headers)
    }

    /// Deleting by a write a local document that is not there succeeds all the same
    /// (rev "0-0"), as CouchDB 3.4.3 answers; a DELETE, which opens it first, is 404.
    private static func stored(_ database: Database, id: String, _ update: DocumentUpdate,
                               rev: String?) async throws -> String {
        do {
            return try await database.putLocal(id: id, body: update.body, rev: rev, isDeleted: update.isDeleted)
        } catch StoreError.documentNotFound where update.isDeleted {
            return "0-0"
        }
    }

    static func delete(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = localID(context)
        let rev = try context.requestedRev
        let newRev = try await database.putLocal(id: id, body: Array("{}".utf8), rev: rev, isDeleted: true)
        return JSONResponse.ok(["ok": true, "id": .string("_local/" + id), "rev": .string(newRev)])
    }

    /// `_local_docs`: rows like `_all_docs`, `value: {"rev": "0-N"}`. With `keys`,
    /// a row per `_local/` key in the keys' order (reversed when descending), a
    /// `not_found` row for a missing one; keys without the prefix are left out,
    /// as CouchDB 3.4 does.
    static func list(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        if context.request.method != "POST" { try context.query.checkViewParameters() }
        let query = try await AllDocsHandlers.requestQuery(context)
        return JSONResponse.make(status: 200, bytes: try await answer(database, query) + [0x0A])
    }

    /// `POST /{db}/_local_docs/queries`: one `_local_docs` answer per query, in
    /// `{"results":[...]}`, framed as `_all_docs/queries` (CouchDB 3.4.3 answers it).
    static func queries(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let list = try AllDocsHandlers.queryList(try await context.jsonBody().object())
        var out = Array(#"{"results":["#.utf8)
        for (offset, item) in list.enumerated() {
            guard case .object(let options) = item else { throw CouchError.badRequest("Each query must be an object.") }
            out.append(contentsOf: (offset == 0 ? "\r\n" : ",\r\n").utf8)
            out.append(contentsOf: try await answer(database, try AllDocsHandlers.query(context.query, over: options, isQueriesItem: true)))
        }
        out.append(contentsOf: "\r\n]}\n".utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }

    /// One `_local_docs` answer object.
    private static func answer(_ database: Database, _ query: AllDocsQuery) async throws -> [UInt8] {
        var rows: [(key: String, document: LocalDocument?)] = []
        if let keys = query.keys {
            let local = keys.filter { $0.hasPrefix("_local/") }
            var selected = (query.descending ? Array(local.reversed()) : local).dropFirst(max(0, query.skip))
            if let limit = query.limit { selected = selected.prefix(max(0, limit)) }
            for key in selected { rows.append((key, try await database.localDocument(id: String(key.dropFirst(7))))) }
        } else {
            rows = try await database.localDocuments(storeRange(query)).map { ("_local/" + $0.id, $0) }
        }
        // `update_seq=true` adds a null `update_seq`, as CouchDB 3.4.3 (local documents have no sequence).
        var out: [UInt8] = Array((query.updateSeq ? #"{"total_rows":null,"offset":null,"update_seq":null,"rows":["#
            : #"{"total_rows":null,"offset":null,"rows":["#).utf8)
        for (i, row) in rows.enumerated() {
            out.append(contentsOf: i == 0 ? "\r\n".utf8 : ",\r\n".utf8)
            write(row.key, row.document, includeDocs: query.includeBodies, to: &out)
        }
        // CouchDB's row framing: `[\r\n`, rows joined by `,\r\n`, `\r\n]}`; empty too.
        out.append(contentsOf: (rows.isEmpty ? "\r\n\r\n]}" : "\r\n]}").utf8)
        return out
    }

    /// The range bounds in the store's terms. CouchDB compares `startkey`/`endkey` (and
    /// `key`) with whole ids, `_local/` and all; the store keeps ids without the prefix.
    /// A bound before every `_local/` id becomes "" (no local id is empty); one after them
    /// all becomes U+10FFFF, beyond any stored id's UTF-8 bytes.
    static func storeRange(_ query: AllDocsQuery) -> AllDocsQuery {
        func stripped(_ bound: String) -> String {
            let prefix = "_local/"
            if bound.hasPrefix(prefix) { return String(bound.dropFirst(prefix.count)) }
            return bound.utf8.lexicographicallyPrecedes(prefix.utf8) ? "" : "\u{10FFFF}"
        }
        var query = query
        query.startKey = query.startKey.map(stripped)
        query.endKey = query.endKey.map(stripped)
        return query
    }

    private static func write(_ key: String, _ document: LocalDocument?, includeDocs: Bool, to out: inout [UInt8]) {
        guard let document else {
            out.append(contentsOf: #"{"key":"#.utf8)
            JSONWriter.writeString(key, to: &out)
            out.append(contentsOf: #","error":"not_found"}"#.utf8)
            return
        }
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONWriter.writeString(key, to: &out)
        out.append(contentsOf: #","key":"#.utf8)
        JSONWriter.writeString(key, to: &out)
        out.append(contentsOf: #","value":{"rev":"#.utf8)
        JSONWriter.writeString(document.rev, to: &out)
        out.append(UInt8(ascii: "}"))
        if includeDocs {
            out.append(contentsOf: #","doc":"#.utf8)
            DocumentWriter(id: key, rev: document.rev, body: document.body).write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// couch_doc:parse_rev/1's first test: an integer, a `-`, then anything.
    static func parsesAsRev(_ text: String) -> Bool {
        guard let dash = text.firstIndex(of: "-") else { return false }
        return Int(text[..<dash]) != nil
    }

    private static func localID(_ context: RequestContext) -> String {
        String((context.parameters.docID ?? "").dropFirst("_local/".count))
    }
}
