internal import Crypto
import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `_show`, `_list` and `_update` functions (CouchDB API Reference › Design Documents;
/// couch_mrview_show.erl): deprecated in CouchDB but still what older apps run.
enum RenderHandlers {
    /// `/{db}/_design/{ddoc}/_show/{name}[/{docid}]`, any method: the document (with
    /// `_revisions` and `_conflicts`; null when missing or no id given) and the request
    /// through `shows.name`. The answer carries an `ETag` of the design document, the
    /// document, `Accept` and the user, and `Vary: Accept`.
    static func show(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let call = try await DocumentFunctionCall("shows", context, database)
        let etag = showETag(context, designRev: call.designRev, documentRev: call.document?.rev)
        if let notModified = EntityTag.notModified(context, etag) { return notModified }
        var response = try ExternalResponse(try await call.run(.show))
        response.set("ETag", etag)
        response.set("Vary", "Accept")
        return response.response()
    }

    /// `/{db}/_design/{ddoc}/_update/{name}[/{docid}]`, any method but GET: `updates.name`
    /// returns `[document, response]`; a document is saved as a `PUT` would save it
    /// (201, `X-Couch-Id`, `X-Couch-Update-NewRev`), null saves nothing (200).
    static func update(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let result = try await DocumentFunctionCall("updates", context, database).run(.update)
        guard case .array(let pair) = result, pair.count == 2 else {
            throw CouchError(500, "render_error", "undefined response from update function")
        }
        guard case .object(var object) = pair[0] else { return try ExternalResponse(pair[1]).response() }
        // CouchDB reads `_revisions` after `_rev`: the document handed in names its base that way.
        if let revisions = object["_revisions"], let start = revisions["start"]?.intValue,
           let newest = revisions["ids"]?.arrayValue?.first?.stringValue {
            object["_rev"] = .string("\(start)-\(newest)")
        }
        guard object["_id"] != nil else { throw CouchError(400, "illegal_docid", "Document id must not be empty") }
        let parsed = try DocumentHandlers.parser(context).parse(object, id: nil, newEdits: true)
        let rev = try await DocumentHandlers.write(parsed, to: database, newEdits: true, stats: context.node.stats)
        var response = try ExternalResponse(pair[1], code: 201)
        response.set("X-Couch-Update-NewRev", rev.description)
        response.set("X-Couch-Id", CouchURLEncoding.encode(parsed.update.id))
        return response.response()
    }

    /// `GET|POST /{db}/_design/{ddoc}/_list/{name}/[{other ddoc}/]{view}`: the view's
    /// (or `_all_docs`') rows, with the view's options, through `lists.name`, which
    /// reads them with `getRow()` and writes with `start()` and `send()`.
    static func list(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let (ddocID, name) = target(context)
        let parts = (context.parameters[.path] ?? "").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count) else { throw CouchError(404, "list_error", "Invalid path.") }
        let design = try await DesignDocuments.revision(ddocID, in: database)
        let function = try RenderFunctions.function("lists", name, design.code(database))
        var keys: JSONValue?
        if context.request.method == "POST" {
            try MaintenanceHandlers.requireJSONContentType(context)
            keys = try await context.jsonBody().object()["keys"]
        }
        let viewName = parts[parts.count - 1]
        let bytes: [UInt8]
        if viewName == "_all_docs" {
            var query = try AllDocsHandlers.parseQuery(context.query)
            if let keys { query.keys = keys.arrayValue?.map { $0.stringValue ?? JSONWriter.string($0) } }
            guard case .bytes(let body) = try await AllDocsHandlers.respond(context, database, query: query).body else {
                throw CouchError(500, "list_error", "_all_docs did not answer")
            }
            bytes = body
        } else {
            let view = try await ViewHandlers.definition(context, parts.count == 2 ? parts[0] : String(ddocID.dropFirst(8)),
                                                         viewName, database)
            var body: JSONObject?
            if let keys { body = ["keys": keys] }
            bytes = try await ViewHandlers.run(view, try ViewQuery(context.query, body: body), database)
        }
        let (head, rows) = try headAndRows(bytes)
        let request = try await RequestObject.make(context, database, id: nil, body: nil)
        let result = try await RenderFunctions.run(function, .list, first: JSONWriter.string(head), request: request,
                                                   rows: JSONWriter.string(rows), service: context.node.javaScript)
        // Nothing sent at all: CouchDB ends the list with an empty 200.
        guard result["started"] == .bool(true) else { return HTTPResponse(status: 200, body: .bytes([])) }
        var response = try ExternalResponse(result["head"] ?? [:])
        response.body = []
        for chunk in result["chunks"]?.arrayValue ?? [] {
            response.body.append(contentsOf: (chunk.stringValue ?? JSONWriter.string(chunk)).utf8)
        }
        return response.response()
    }

    // MARK: Parts

    /// A show or update function and what it is called with: the document the path
    /// names (if any) and the request object.
    private struct DocumentFunctionCall {
        let function: DesignFunction
        let designRev: String
        let document: (json: String, rev: String)?
        let context: RequestContext
        let database: Database

        init(_ section: String, _ context: RequestContext, _ database: Database) async throws {
            let (ddocID, name) = target(context)
            let design = try await DesignDocuments.revision(ddocID, in: database)
            function = try RenderFunctions.function(section, name, design.code(database))
            designRev = design.rev
            // The system databases' read rule (`DesignFunctionAccess.mayReadWhole`): a document
            // the caller may not read whole reaches the function as null, its id still `req.id`,
            // as CouchDB's `after_doc_read` makes it `not_found`.
            if let id = context.parameters[.path], try await DesignFunctionAccess.mayReadWhole(id, context, database) {
                document = try await documentJSON(id, database)
            } else {
                document = nil
            }
            self.context = context
            self.database = database
        }

        func run(_ kind: RenderKind) async throws -> JSONValue {
            let request = try await RequestObject.make(context, database, id: context.parameters[.path],
                                                       body: try await RequestObject.body(context))
            return try await RenderFunctions.run(function, kind, first: document?.json ?? "null", request: request,
                                                 service: context.node.javaScript)
        }
    }

    private static func target(_ context: RequestContext) -> (ddocID: String, name: String) {
        ("_design/" + (context.parameters[.ddoc] ?? ""), context.parameters[.name] ?? "")
    }

    /// The document as a show or update function gets it: the winner with `_revisions`
    /// and `_conflicts` (couch_query_servers:json_doc); nil when missing or deleted.
    private static func documentJSON(_ id: String?, _ database: Database) async throws -> (json: String, rev: String)? {
        guard let id else { return nil }
        let read: DocumentReader.Revision
        do {
            read = try await DocumentReader.read(database, id: id, rev: nil, needsTree: true)
        } catch DocumentError.notFound {
            return nil
        }
        var options = DocumentOptions()
        options.revs = true
        options.conflicts = true
        let rev = read.revision.rev.description
        let writer = RevisionJSON.render(id: id, tree: read.tree, read.revision, rev: rev, options: options)
        return (String(decoding: writer.serialize(), as: UTF8.self), rev)
    }

    private static func showETag(_ context: RequestContext, designRev: String, documentRev: String?) -> String {
        let parts = [designRev, documentRev ?? "null", context.headers["Accept"] ?? "", context.user.name ?? "null"]
            + context.user.roles
        let digest = Insecure.MD5.hash(data: Array(parts.joined(separator: "\n").utf8))
        return "\"" + digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined() + "\""
    }

    /// A view response's head (`total_rows`, `offset`, `update_seq`; `{}` when reduced)
    /// and its rows with `id`, `key`, `value` and `doc` (couch_mrview_show:list_cb).
    private static func headAndRows(_ bytes: [UInt8]) throws -> (JSONValue, JSONValue) {
        let response = try JSONReader.parse(bytes)
        var head = JSONObject()
        for key in ["total_rows", "offset", "update_seq"] {
            if let value = response[key], value != .null { head[key] = value }
        }
        let rows: [JSONValue] = (response["rows"]?.arrayValue ?? []).map { row in
            var out = JSONObject()
            for key in ["id", "key", "value", "doc"] { if let value = row[key] { out[key] = value } }
            return .object(out)
        }
        return (.object(head), .array(rows))
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
