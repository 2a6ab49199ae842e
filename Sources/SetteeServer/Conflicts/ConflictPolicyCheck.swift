import SetteeJSON
import SetteeStore

/// A JavaScript conflicts policy must compile when its design document is saved, as a
/// view's map function must (400 `compilation_error`, `DesignDocumentCheck`); the
/// declaration's shape is checked first, synchronously (`DesignDocumentPolicy`).
enum ConflictPolicyCheck {
    /// Why the design document is refused for its policy; nil when it compiles or has none.
    static func compileRefusal(_ body: JSONValue, _ code: DesignCode, _ service: JavaScriptService) async -> WriteRejection? {
        guard case .javaScript(let source)? = try? ConflictPolicy.declared(in: body) else { return nil }
        do {
            try await service.compile(ConflictPolicyRun.policyFunction(source, code))
            return nil
        } catch let error as CouchError {
            return .refused(status: error.status, error: error.error, reason: error.reason)
        } catch {
            return .refused(status: 400, error: "compilation_error", reason: "\(error)")
        }
    }
}
