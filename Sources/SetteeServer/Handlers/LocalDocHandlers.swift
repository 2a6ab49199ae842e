import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `/{db}/_local/{id}` and `/{db}/_local_docs` (CouchDB API Reference › Local
/// (non-replicating) Documents): no history and no revision check, rev `0-N`.
enum LocalDocHandlers {
    static func get(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = localID(context)
        guard let local = try await database.localDocument(id: id) else { throw CouchError.notFound("missing") }
        var writer = DocumentWriter(id: "_local/" + id, rev: local.rev, body: local.body)
        if context.query.flag("revs") {
            let n = local.rev.split(separator: "-").last.map(String.init) ?? "0"
            writer.append("_revisions", ["start": 0, "ids": [.string(n)]])
        }
        return JSONResponse.make(status: 200, bytes: writer.responseBody())
    }

    static func put(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = localID(context)
        var object = try await context.jsonBody().object(orThrow: "Document must be a JSON object")
        try DocumentHandlers.mergeRevParameters(context, into: &object)
        // Local revs are `0-N`, not revision ids: take `_rev` out before the document rules apply.
        let rev = object["_rev"]?.stringValue
        object["_rev"] = nil
        let parsed = try DocumentHandlers.parser(context).parse(object, id: "_local/" + id, newEdits: true)
        let newRev = try await database.putLocal(id: id, body: parsed.update.body, rev: rev,
                                                 isDeleted: parsed.update.isDeleted)
        return JSONResponse.make(status: 201, ["ok": true, "id": .string("_local/" + id), "rev": .string(newRev)])
    }

    static func delete(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = localID(context)
        let rev = context.requestedRev
        let newRev = try await database.putLocal(id: id, body: Array("{}".utf8), rev: rev, isDeleted: true)
        return JSONResponse.ok(["ok": true, "id": .string("_local/" + id), "rev": .string(newRev)])
    }

    /// `_local_docs`: rows like `_all_docs`, `value: {"rev": "0-N"}`.
    static func list(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        var query = try AllDocsHandlers.parseQuery(context.query)
        if context.request.method == "POST", let keys = try await AllDocsHandlers.postedKeys(context) { query.keys = keys }
        let includeDocs = query.includeBodies
        let docs = try await database.localDocuments(query)
        var out: [UInt8] = Array(#"{"total_rows":null,"offset":null,"rows":["#.utf8)
        for (i, doc) in docs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            let fullID = "_local/" + doc.id
            out.append(contentsOf: #"{"id":"#.utf8)
            JSONWriter.writeString(fullID, to: &out)
            out.append(contentsOf: #","key":"#.utf8)
            JSONWriter.writeString(fullID, to: &out)
            out.append(contentsOf: #","value":{"rev":"#.utf8)
            JSONWriter.writeString(doc.rev, to: &out)
            out.append(UInt8(ascii: "}"))
            if includeDocs {
                out.append(contentsOf: #","doc":"#.utf8)
                DocumentWriter(id: fullID, rev: doc.rev, body: doc.body).write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}\n".utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }

    private static func localID(_ context: RequestContext) -> String {
        String((context.parameters.docID ?? "").dropFirst("_local/".count))
    }
}
