import SetteeJSON
import SetteeStore
import SetteeViews

/// Design documents are checked when written, as CouchDB checks them
/// (couch_mrview:validate/2): every JavaScript view's map and reduce must compile
/// (400 `compilation_error`), a built-in reduce must exist (400 `invalid_design_doc`).
/// In `prepare`, before the write's transaction: compiling takes an engine.
struct DesignDocumentPolicy: WritePolicy {
    func review(_ update: DocumentUpdate, newEdits: Bool,
                current: () throws -> StoredRevision?) throws(WriteRejection) {}

    func prepare(_ update: DocumentUpdate, newEdits: Bool) throws(WriteRejection) -> DocumentUpdate {
        // Without an engine nothing can be compiled: saved as CouchDB would save it.
        guard JavaScriptEngine.isAvailable, !update.isDeleted, let body = try? JSONReader.parse(update.body),
              (body["language"]?.stringValue ?? "javascript") == "javascript",
              let views = body["views"]?.objectValue, !views.isEmpty else { return update }
        var engine: JavaScriptEngine?
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
            do {
                let compiler = try engine ?? JavaScriptEngine()
                engine = compiler
                _ = try compiler.compile(definition.map, modules: definition.modules)
                if let reduce = definition.reduce, definition.builtinReduce == nil {
                    do { _ = try compiler.compile(reduce) } catch {
                        throw WriteRejection.refused(status: 400, error: "compilation_error", reason:
                            "Compilation of the reduce function in the '\(view.key)' view failed: \(error.message)")
                    }
                }
            } catch let error as JavaScriptError {
                throw .refused(status: 400, error: "compilation_error",
                               reason: "Compilation of the map function in the '\(view.key)' view failed: \(error.message)")
            } catch let rejection as WriteRejection {
                throw rejection
            } catch {
                throw .refused(status: 400, error: "compilation_error", reason: "\(error)")
            }
        }
        return update
    }
}
