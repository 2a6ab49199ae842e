public import SetteeJSON
internal import Synchronization

/// Which design document function `JavaScriptEngine.render` runs.
public enum RenderKind: String, Sendable {
    /// `shows.name(doc, req)`: a response.
    case show
    /// `updates.name(doc, req)`: `[document to save or null, response]`.
    case update
    /// `lists.name(head, req)` over a view's rows: `{"head": start's response, "chunks": [...], "started": bool}`.
    case list
    /// `rewrites(req)`: a path, an object naming the rewritten request or a response, or null.
    case rewrite
}

/// What a show, list or update function gave: its result, or the error CouchDB
/// would answer with (`type` such as `render_error`, `not_found`, `not_acceptable`).
public enum RenderOutcome: Sendable {
    case result(JSONValue)
    case error(type: String, reason: String)
}

extension JavaScriptEngine {
    /// Runs show, update or list function `function` (compiled with
    /// `compile(_:designDocument:)`). `first` is the document's JSON text ("null" for
    /// none) or, for a list, its head; `request` CouchDB's request object; `rows` a
    /// list's rows as a JSON array.
    public func render(_ kind: RenderKind, _ function: Int, first: String, request: String,
                       rows: String = "null") throws(JavaScriptError) -> RenderOutcome {
        let result = try lock.withLock { _ throws(JavaScriptError) -> String in
            let arguments = [try parseJSON("\"" + kind.rawValue + "\""), functions[function], try parseJSON(first),
                             try parseJSON(request), try parseJSON(rows)]
            return try call("__render", arguments)
        }
        let outcome = try Self.parse(result)
        if case .array(let pair)? = outcome["error"], pair.count == 2 {
            return .error(type: pair[0].stringValue ?? "render_error", reason: pair[1].stringValue ?? "")
        }
        return .result(outcome["ok"] ?? .null)
    }
}
