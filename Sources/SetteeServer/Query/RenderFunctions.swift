import SetteeJSON
import SetteeStore
import SetteeViews

/// Shows, lists and updates compiled into their engines, one engine per function,
/// kept while the design document's revision stays the same.
enum RenderFunctions {
    private static let cache = CompiledFunctions<CompiledFunction>()

    /// Function `name` of `section` ("shows", "lists", "updates") of design document
    /// `id` at `rev`: 404 "missing json key: name" when it has none, as CouchDB answers.
    static func compiled(_ section: String, _ name: String, designDocument id: String, rev: String,
                         body: JSONValue, in database: Database) throws -> CompiledFunction {
        guard let source = body[section]?[name]?.stringValue else {
            throw CouchError.notFound("missing json key: \(name)")
        }
        var designDocument = JSONObject()
        designDocument["_id"] = .string(id)
        designDocument["_rev"] = .string(rev)
        for member in body.objectValue ?? JSONObject() { designDocument[member.key] = member.value }
        return try cache.value(for: DesignCodeKey.make(database, id: id, rev: rev, body: body) + "/" + section + "/" + name,
                               failure: {
            "Compilation of the \(section.dropLast()) function \(name) failed: \($0)"
        }) { () throws(JavaScriptError) in
            let engine = try JavaScriptEngine()
            return CompiledFunction(engine: engine, handle: try engine.compile(source, designDocument: .object(designDocument)))
        }
    }

    /// Runs a compiled function: its result, or CouchDB's error for what it threw.
    static func run(_ compiled: CompiledFunction, _ kind: RenderKind, first: String, request: JSONValue,
                    rows: String = "null") throws -> JSONValue {
        let outcome: RenderOutcome
        do {
            outcome = try compiled.engine.render(kind, compiled.handle, first: first, request: JSONWriter.string(request),
                                                 rows: rows)
        } catch {
            throw CouchError(500, "os_process_error", error.message)
        }
        switch outcome {
        case .result(let value): return value
        case .error(let type, let reason): throw CouchError(status(of: type), type, reason)
        }
    }

    /// The status CouchDB gives an error a function threw (chttpd:error_info).
    static func status(of type: String) -> Int {
        switch type {
        case "bad_request": 400
        case "unauthorized": 401
        case "forbidden": 403
        case "not_found": 404
        case "method_not_allowed": 405
        case "not_acceptable": 406
        case "conflict": 409
        default: 500
        }
    }
}
