import SetteeJSON
import SetteeStore
import SetteeViews

/// Shows, lists and updates, run by the node's `JavaScriptService` in an engine of
/// their own database's design document (`DesignCode`).
enum RenderFunctions {
    /// Function `name` of `section` ("shows", "lists", "updates") of the design document:
    /// 404 "missing json key: name" when it has none, as CouchDB answers.
    static func function(_ section: String, _ name: String, _ code: DesignCode) throws -> DesignFunction {
        guard let source = code.body[section]?[name]?.stringValue else {
            throw CouchError.notFound("missing json key: \(name)")
        }
        return DesignFunction(code: code, name: section + "/" + name, source: source, scope: .designDocument,
                              failure: "Compilation of the \(section.dropLast()) function \(name) failed: ")
    }

    /// Runs a function: its result, or CouchDB's error for what it threw.
    static func run(_ function: DesignFunction, _ kind: RenderKind, first: String, request: JSONValue,
                    rows: String = "null", service: JavaScriptService) async throws -> JSONValue {
        let requestText = JSONWriter.string(request)
        let outcome: RenderOutcome
        do {
            outcome = try await service.call(function) { (engine, handle) throws(JavaScriptError) in
                try engine.render(kind, handle, first: first, request: requestText, rows: rows)
            }
        } catch let error as JavaScriptError {
            throw CouchError(javaScript: error, in: .render)
        }
        switch outcome {
        case .result(let value): return value
        case .error(let type, let reason): throw CouchError.thrownByFunction(type, reason)
        }
    }
}
