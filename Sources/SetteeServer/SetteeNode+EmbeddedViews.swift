package import SetteeJSON
package import SetteeStore
import SetteeViews

/// A request-level failure as CouchDB would answer it (`{status, error, reason}`), for the
/// embedding library, which maps it onto its own error enum: `CouchError` stays internal.
package struct EmbeddedFailure: Error, Sendable, Equatable {
    package let status: Int
    package let error: String
    package let reason: String

    package init(status: Int, error: String, reason: String) {
        self.status = status
        self.error = error
        self.reason = reason
    }

    init(_ error: CouchError) {
        status = error.status
        self.error = error.error
        reason = error.reason
    }
}

/// Map/reduce views without HTTP, for the embedding library: the view handler's own code
/// (`ViewHandlers.definition` and `run`), on the node's JavaScript service, so a program
/// and `GET /{db}/_design/{ddoc}/_view/{view}` read the same index and get the same rows.
package enum EmbeddedViews {
    /// Whether JavaScriptCore could be loaded (views, `validate_doc_update` and JavaScript
    /// conflict policies need it).
    package static var isJavaScriptAvailable: Bool { JavaScriptEngine.isAvailable }

    /// The response body `GET .../_view/{view}` would answer, for `options` given as a
    /// `POST` body's members (`key`, `keys`, `startkey`, `limit`, `reduce`, `group`, ...).
    /// - Throws: `EmbeddedFailure` where the handler answers an error (404 for a missing
    ///   design document or view, 400 for bad options, 501 without JavaScriptCore, 500
    ///   for a function that failed); the store's errors as they are.
    package static func query(design: String, view: String, options: JSONObject, in database: Database,
                              node: SetteeNode) async throws -> [UInt8] {
        do {
            let requested = try await ViewHandlers.definition(design, view, database, service: node.javaScript)
            let query = try ViewQuery(QueryOptions(items: []), body: options)
            return try await ViewHandlers.run(requested, query, database)
        } catch let error as CouchError {
            throw EmbeddedFailure(error)
        }
    }
}
