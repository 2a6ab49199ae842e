import SetteeViews

/// What design document code was called for: CouchDB answers a failure of each its own way.
enum JavaScriptCall: CaseIterable, Sendable {
    /// A map function building a view's index (and anything not named below).
    case map
    case reduce
    /// A show, list or update function.
    case render
    /// A `_changes` filter function.
    case filter
    /// A `validate_doc_update` function.
    case validation
}

/// THE table from a `JavaScriptError` (and what a function answered as its error) to
/// CouchDB's `{status, error, reason}`: every caller of the JavaScript service maps through it.
extension CouchError {
    /// A call that failed. A call stopped by its time limit is CouchDB's
    /// `{os_process_error, "OS process timed out."}` (couch_os_process.erl `readline`),
    /// whatever the function was for: 500, validation included.
    init(javaScript error: JavaScriptError, in call: JavaScriptCall) {
        if error.isUnavailable {
            self = CouchError(501, "not_implemented", error.message)
            return
        }
        if error.isOverloaded {
            self = .fromJavaScript(503, "service_unavailable", error.message)
            return
        }
        switch call {
        case .map, .render, .validation: self = .fromJavaScript(500, "os_process_error", error.message)
        case .reduce: self = .fromJavaScript(500, "reduce_error", error.message)
        // CouchDB answers 500 `error` (its query server's crash) for the whole request.
        case .filter: self = .fromJavaScript(500, "error", "The filter function threw: \(error.message)")
        }
    }

    /// A function that does not compile (CouchDB's `compilation_error`, with the
    /// function's own words of what failed to compile before the engine's).
    static func javaScriptCompilation(_ error: JavaScriptError, failure: String) -> CouchError {
        if error.isUnavailable { return CouchError(501, "not_implemented", error.message) }
        return CouchError(400, "compilation_error", failure + error.message)
    }

    /// An error a show, list or update function threw as `{error, reason}`.
    static func thrownByFunction(_ type: String, _ reason: String) -> CouchError {
        .fromJavaScript(thrownStatus(of: type), type, reason)
    }

    /// The status CouchDB gives an error a function threw (chttpd:error_info).
    static func thrownStatus(of type: String) -> Int {
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
