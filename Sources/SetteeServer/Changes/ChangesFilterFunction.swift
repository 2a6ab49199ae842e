import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `_changes?filter=ddoc/name` (a design document's `filters.name`) and
/// `filter=_view&view=ddoc/name` (the changes of documents a view's map emits for),
/// as CouchDB runs them (docs.couchdb.org "Changes Feed" › "Filtering"): the function
/// gets the document's winning revision (`_deleted` stubs too) and CouchDB's request
/// object (`RequestObject`); one that throws fails the request. Each document is one
/// call on the node's `JavaScriptService`, in an engine of this database's design
/// document (never another database's with the same source).
struct ChangesFilterFunction: Sendable {
    private enum Kind: Sendable {
        case filter(request: String)
        case view
    }

    private let function: DesignFunction
    private let kind: Kind
    private let service: JavaScriptService

    static func filter(_ name: String, _ context: RequestContext) async throws -> ChangesFilterFunction {
        let database = try requestedDatabase(context)
        let function = try await designFunction(name, database, kind: "filter") { $0["filters"]?[$1] }
        let request = try await RequestObject.make(context, database, id: nil, body: nil)
        return try await ChangesFilterFunction(function, .filter(request: JSONWriter.string(request)), context.node.javaScript)
    }

    /// Filter `name` of a local replication source: `query` is `req.query`, the user the
    /// server's own replicator (an admin).
    static func replication(_ name: String, query: JSONObject, database: Database,
                            service: JavaScriptService) async throws -> ChangesFilterFunction {
        let function = try await designFunction(name, database, kind: "filter") { $0["filters"]?[$1] }
        let security = (try? JSONReader.parse(try await database.security())) ?? [:]
        let request: JSONValue = [
            "method": "GET", "query": .object(query), "path": .array([.string(database.name), "_changes"]),
            "headers": [:], "body": "undefined", "form": [:], "cookie": [:], "id": .null,
            "userCtx": ["db": .string(database.name), "name": .null, "roles": ["_admin"]], "secObj": security,
        ]
        return try await ChangesFilterFunction(function, .filter(request: JSONWriter.string(request)), service)
    }

    static func view(_ name: String, _ context: RequestContext) async throws -> ChangesFilterFunction {
        let function = try await designFunction(name, try requestedDatabase(context), kind: "map") {
            $0["views"]?[$1]?["map"]
        }
        return try await ChangesFilterFunction(function, .view, context.node.javaScript)
    }

    /// Checks that the function compiles (400 `compilation_error` before any change is sent).
    private init(_ function: DesignFunction, _ kind: Kind, _ service: JavaScriptService) async throws {
        try await service.compile(function)
        self.function = function
        self.kind = kind
        self.service = service
    }

    func accepts(_ id: String, in database: Database) async throws -> Bool {
        guard let revision = try await database.winner(id: id), let body = revision.body else { return false }
        var writer = DocumentWriter(id: id, rev: revision.rev.description, body: body)
        writer.isDeleted = revision.isDeleted
        let document = String(decoding: writer.serialize(), as: UTF8.self)
        switch kind {
        case .filter(let request):
            do {
                return try await service.call(function) { (engine, handle) throws(JavaScriptError) in
                    try engine.filter(handle, document: document, request: request)
                }
            } catch let error as JavaScriptError {
                throw CouchError(javaScript: error, in: .filter)
            }
        case .view:
            let rows = try? await service.call(function) { (engine, handle) throws(JavaScriptError) in
                try engine.map(handle, documents: [document])
            }
            guard let first = rows?.first, let emitted = first else { return false }
            return !emitted.isEmpty
        }
    }

    private static func requestedDatabase(_ context: RequestContext) throws -> Database {
        guard let database = try context.node.directory.database(named: context.parameters.db ?? "") else {
            throw CouchError.databaseNotFound
        }
        return database
    }

    /// The function at `pick(designDocument, name)` of `ddoc/name`: 404 when the design
    /// document or the function is missing, as CouchDB answers.
    private static func designFunction(_ name: String, _ database: Database, kind: String,
                                       _ pick: (JSONValue, String) -> JSONValue?) async throws -> DesignFunction {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            throw CouchError.badRequest("`filter` must be of the form `designname/filtername`")
        }
        let design = try await DesignDocuments.revision("_design/" + parts[0], in: database)
        guard let source = pick(design.body, parts[1])?.stringValue else {
            throw CouchError.notFound("missing json key: \(parts[1])")
        }
        // A view's map keeps its `require` of `views.lib` here too.
        let scope: DesignFunction.Scope = kind == "map" ? .modules(design.body["views"]?["lib"].map { ["views": ["lib": $0]] })
            : .plain
        return DesignFunction(code: design.code(database), name: (kind == "map" ? "views/" : "filters/") + parts[1]
                                  + (kind == "map" ? "/map" : ""),
                              source: source, scope: scope,
                              failure: "Compilation of the \(kind) function \(name) failed: ")
    }
}
