import SetteeJSON
import SetteeStore
import SetteeViews

/// Design documents are checked when written, as CouchDB checks them
/// (couch_mrview:validate/2): every JavaScript view's map and reduce function must
/// compile (400 `compilation_error`). Compiling takes an engine, so it runs on the
/// node's `JavaScriptService` from the write's asynchronous validation step, before
/// the write's transaction (`DocumentValidation`); built-in reduce names are checked
/// by `DesignDocumentPolicy`. Without an engine nothing can be compiled: the document
/// is saved as CouchDB would save it.
///
/// The engine is asked for only when a document has something to compile: loading it
/// (dlopen of JavaScriptCore and its libraries, their relocations) was a third of a fresh
/// server's start-up CPU and 1.6 MB of its RSS, for `_design/_auth`, which has none.
enum DesignDocumentCheck {
    /// Per index of `updates`, why that design document is refused.
    static func refusals(_ updates: [DocumentUpdate], _ database: Database,
                         _ service: JavaScriptService) async -> [Int: WriteRejection] {
        var refusals: [Int: WriteRejection] = [:]
        for (index, update) in updates.enumerated() where update.id.hasPrefix("_design/") && !update.isDeleted {
            guard let body = try? JSONReader.parse(update.body), hasCode(body), JavaScriptEngine.isAvailable else { continue }
            let rev = (update.history.first ?? update.baseRevision)?.description ?? ""
            let code = DesignCode(database: database, id: update.id, rev: rev, body: body)
            if let refusal = await ConflictPolicyCheck.compileRefusal(body, code, service) {
                refusals[index] = refusal
                continue
            }
            guard (body["language"]?.stringValue ?? "javascript") == "javascript",
                  let views = body["views"]?.objectValue, !views.isEmpty else { continue }
            for name in views.keys {
                guard let view = ViewDefinition.named(name, designDocumentID: update.id, body: body),
                      view.validateReduce() == nil else { continue }
                do {
                    try await ViewIndexes.compile(view, code, service)
                } catch let error as CouchError {
                    refusals[index] = .refused(status: error.status, error: error.error, reason: error.reason)
                    break
                } catch {
                    refusals[index] = .refused(status: 400, error: "compilation_error", reason: "\(error)")
                    break
                }
            }
        }
        return refusals
    }

    /// Whether `body` holds a function compiled here: a JavaScript conflict policy or views.
    static func hasCode(_ body: JSONValue) -> Bool {
        if case .javaScript? = try? ConflictPolicy.declared(in: body) { return true }
        return body["views"]?.objectValue.map { !$0.isEmpty } ?? false
    }
}
