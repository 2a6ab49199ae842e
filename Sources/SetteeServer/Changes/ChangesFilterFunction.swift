import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `_changes?filter=ddoc/name` (a design document's `filters.name`) and
/// `filter=_view&view=ddoc/name` (the changes of documents a view's map emits for),
/// as CouchDB runs them (docs.couchdb.org "Changes Feed" › "Filtering"): the function
/// gets the document's winning revision (`_deleted` stubs too) and CouchDB's request
/// object (`RequestObject`); one that throws fails the request.
struct ChangesFilterFunction: Sendable {
    private enum Kind: Sendable {
        case filter(request: String)
        case view
    }

    private let function: CompiledFunction
    private let kind: Kind

    private static let cache = CompiledFunctions<CompiledFunction>()

    static func filter(_ name: String, _ context: RequestContext) async throws -> ChangesFilterFunction {
        let database = try requestedDatabase(context)
        let code = try await designFunction(name, database) { $0["filters"]?[$1] }
        let request = try await RequestObject.make(context, database, id: nil, body: nil)
        return ChangesFilterFunction(function: try compiled(code, kind: "filter", name: name),
                                     kind: .filter(request: JSONWriter.string(request)))
    }

    /// Filter `name` of a local replication source: `query` is `req.query`, the user the
    /// server's own replicator (an admin).
    static func replication(_ name: String, query: JSONObject, database: Database) async throws -> ChangesFilterFunction {
        let code = try await designFunction(name, database) { $0["filters"]?[$1] }
        let security = (try? JSONReader.parse(try await database.security())) ?? [:]
        let request: JSONValue = [
            "method": "GET", "query": .object(query), "path": .array([.string(database.name), "_changes"]),
            "headers": [:], "body": "undefined", "form": [:], "cookie": [:], "id": .null,
            "userCtx": ["db": .string(database.name), "name": .null, "roles": ["_admin"]], "secObj": security,
        ]
        return ChangesFilterFunction(function: try compiled(code, kind: "filter", name: name),
                                     kind: .filter(request: JSONWriter.string(request)))
    }

    static func view(_ name: String, _ context: RequestContext) async throws -> ChangesFilterFunction {
        let code = try await designFunction(name, try requestedDatabase(context)) { $0["views"]?[$1]?["map"] }
        return ChangesFilterFunction(function: try compiled(code, kind: "map", name: name), kind: .view)
    }

    func accepts(_ id: String, in database: Database) async throws -> Bool {
        guard let revision = try await database.winner(id: id), let body = revision.body else { return false }
        var writer = DocumentWriter(id: id, rev: revision.rev.description, body: body)
        writer.isDeleted = revision.isDeleted
        let document = String(decoding: writer.serialize(), as: UTF8.self)
        switch kind {
        case .filter(let request):
            do {
                return try function.engine.filter(function.handle, document: document, request: request)
            } catch {
                // CouchDB answers 500 `error` (its query server's crash) for the whole request.
                throw CouchError(500, "error", "The filter function threw: \(error.message)")
            }
        case .view:
            guard let rows = try? function.engine.map(function.handle, documents: [document]), let first = rows.first,
                  let emitted = first else {
                return false
            }
            return !emitted.isEmpty
        }
    }

    private static func requestedDatabase(_ context: RequestContext) throws -> Database {
        guard let database = try context.node.directory.database(named: context.parameters.db ?? "") else {
            throw CouchError.databaseNotFound
        }
        return database
    }

    /// A function's source and what names its design document's compiled code.
    private struct Code {
        let source: String
        let key: String
    }

    /// The function source at `pick(designDocument, name)` of `ddoc/name`: 404 when the
    /// design document or the function is missing, as CouchDB answers.
    private static func designFunction(_ name: String, _ database: Database,
                                       _ pick: (JSONValue, String) -> JSONValue?) async throws -> Code {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            throw CouchError.badRequest("`filter` must be of the form `designname/filtername`")
        }
        let id = "_design/" + parts[0]
        let design = try await DesignDocuments.revision(id, in: database)
        guard let source = pick(design.body, parts[1])?.stringValue else {
            throw CouchError.notFound("missing json key: \(parts[1])")
        }
        return Code(source: source, key: DesignCodeKey.make(database, id: id, rev: design.rev, body: design.body))
    }

    private static func compiled(_ code: Code, kind: String, name: String) throws -> CompiledFunction {
        let source = code.source
        return try cache.value(for: code.key + "/" + kind + "/" + name, failure: {
            "Compilation of the \(kind) function \(name) failed: \($0)"
        }) { () throws(JavaScriptError) in
            let engine = try JavaScriptEngine()
            return CompiledFunction(engine: engine, handle: try engine.compile(source))
        }
    }
}
