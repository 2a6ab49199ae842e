import SetteeJSON
import SetteeStore
import SetteeViews

/// Design documents are checked when written, as CouchDB checks them
/// (couch_mrview:validate/2): a built-in reduce must exist (400 `invalid_design_doc`).
/// Compiling the views' JavaScript takes an engine and is `DesignDocumentCheck`'s, on
/// the node's JavaScript service: `prepare` is synchronous, on the writing task.
struct DesignDocumentPolicy: WritePolicy {
    func review(_ update: DocumentUpdate, newEdits: Bool,
                current: () throws -> StoredRevision?) throws(WriteRejection) {}

    func prepare(_ update: DocumentUpdate, newEdits: Bool) throws(WriteRejection) -> DocumentUpdate {
        // Members' types are checked even in a deletion's body, as couch_mrview:validate/2 checks them.
        if let body = try? JSONReader.parse(update.body), let reason = DesignDocumentFields.refusal(body) {
            throw .refused(status: 400, error: "invalid_design_doc", reason: reason)
        }
        guard !update.isDeleted, let body = try? JSONReader.parse(update.body) else { return update }
        // A conflicts policy is checked as views are (issue 42, item 3).
        do { _ = try ConflictPolicy.declared(in: body) } catch {
            throw .refused(status: 400, error: "invalid_design_doc", reason: error.reason)
        }
        guard (body["language"]?.stringValue ?? "javascript") == "javascript",
              let views = body["views"]?.objectValue, !views.isEmpty else { return update }
        for view in views {
            guard let definition = ViewDefinition.named(view.key, designDocumentID: update.id, body: body) else {
                continue
            }
            if FunctionSource.isMissing(definition.map) {
                throw .refused(status: 404, error: "not_found", reason: "missing function")
            }
            if let message = definition.validateReduce() {
                throw .refused(status: 400, error: "invalid_design_doc", reason: message)
            }
        }
        return update
    }
}
