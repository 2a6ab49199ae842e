import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `/_membership`, `/_node/{node}` and `/_node/{node}/_config...` as CouchDB's
/// `chttpd_node` answers them (server admins only). Settee is a single node, named
/// `settee@127.0.0.1`; `_local` names it too, and any other name is 404.
enum NodeHandlers {
    static let nodeName = "settee@127.0.0.1"

    static func membership(_ context: RequestContext) async throws -> HTTPResponse {
        try context.requireAdmin()
        return JSONResponse.ok(["all_nodes": [.string(nodeName)], "cluster_nodes": [.string(nodeName)]])
    }

    static func node(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        return JSONResponse.ok(["name": .string(nodeName)])
    }

    /// `GET /_node/{node}/_versions` (chttpd_node:get_versions/0): the collation library
    /// views sort with, and the JavaScript engine. CouchDB's `erlang` member has no
    /// counterpart here.
    static func versions(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        return JSONResponse.ok([
            "collation_driver": ["name": "libicu", "library_version": .string(UnicodeCollator.libraryVersion),
                                 "collation_algorithm_version": .string(UnicodeCollator.algorithmVersion),
                                 "collator_version": .string(UnicodeCollator.version)],
            "javascript_engine": ["name": "javascriptcore"]])
    }

    static func allConfig(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        let sections = context.node.config.all.sorted { $0.key < $1.key }.map { section, keys in
            JSONObject.Member(key: section, value: object(keys))
        }
        return JSONResponse.ok(.object(JSONObject(members: sections)))
    }

    static func section(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        return JSONResponse.ok(object(context.node.config.section(context.parameters[.section] ?? "")))
    }

    static func value(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        let (section, key) = (context.parameters[.section] ?? "", context.parameters[.key] ?? "")
        guard let value = context.node.config.value(key, in: section) else {
            throw CouchError(404, "not_found", "unknown_config_value")
        }
        return JSONResponse.ok(.string(value))
    }

    /// The body is a JSON string; the answer the value it replaced ("" if none).
    /// `X-Couch-Persist: false` leaves the file alone (until `_reload` or a restart).
    static func put(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        let (section, key) = (context.parameters[.section] ?? "", context.parameters[.key] ?? "")
        try ConfigEffects.checkWritable(section: section, key: key)
        let body: JSONValue
        do { body = try await context.jsonBody(checkingContentType: false).value } catch let error as CouchError
            where error.status == 400 { throw CouchError.badRequest("invalid UTF-8 JSON") }
        guard let text = body.stringValue else { throw CouchError.badRequest("a JSON string expected") }
        let old = try context.node.config.set(key, in: section, to: text, persist: persists(context))
        try await ensureAuthDesignDocument(context, changed: key)
        return JSONResponse.ok(.string(old))
    }

    /// A switched `authentication_db` gets CouchDB's `_design/_auth` if it exists, as
    /// CouchDB's auth cache writes it when it starts watching a database (at its next
    /// start there); a database made later gets it when created (`DatabaseHandlers`).
    private static func ensureAuthDesignDocument(_ context: RequestContext, changed key: String) async throws {
        guard key == "authentication_db",
              let database = try context.node.directory.database(named: context.node.live.authentication.name)
        else { return }
        try await AuthDesignDocument.ensure(in: database)
    }

    static func delete(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        let (section, key) = (context.parameters[.section] ?? "", context.parameters[.key] ?? "")
        try ConfigEffects.checkWritable(section: section, key: key)
        let old = try context.node.config.delete(key, in: section, persist: persists(context))
        try await ensureAuthDesignDocument(context, changed: key)
        return JSONResponse.ok(.string(old))
    }

    static func reload(_ context: RequestContext) async throws -> HTTPResponse {
        try checkedNode(context)
        try context.node.config.reload()
        return JSONResponse.ok(["ok": true])
    }

    /// Server admins only; `_local` or this node's name, else 404 as CouchDB's `call_node`.
    static func checkedNode(_ context: RequestContext) throws {
        try context.requireAdmin()
        let node = context.parameters[.node] ?? ""
        guard node == "_local" || node == nodeName else { throw CouchError(404, "not_found", "no such node: \(node)") }
    }

    /// `checkedNode` for the figures (`_stats`, `_system`, `_prometheus`): server admins
    /// and users with the `_metrics` role read them (chttpd_auth_request's
    /// `require_metrics`, CouchDB 3.4).
    static func checkedMetricsNode(_ context: RequestContext) throws {
        if !context.user.isAdmin && !context.user.roles.contains("_metrics") {
            throw CouchError.unauthorized("You are not a server admin or read-only metrics user")
        }
        let node = context.parameters[.node] ?? ""
        guard node == "_local" || node == nodeName else { throw CouchError(404, "not_found", "no such node: \(node)") }
    }

    private static func persists(_ context: RequestContext) -> Bool {
        context.headers["X-Couch-Persist"] != "false"
    }

    private static func object(_ keys: [String: String]) -> JSONValue {
        .object(JSONObject(members: keys.sorted { $0.key < $1.key }.map { JSONObject.Member(key: $0.key, value: .string($0.value)) }))
    }
}
