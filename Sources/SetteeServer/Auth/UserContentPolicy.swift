import SetteeHTTP
import SetteeStore

/// Content that users wrote, served from this server's origin, runs in a sandbox: a
/// `Content-Security-Policy: sandbox` header gives the page an opaque origin and no
/// scripts, so HTML a user (or a database admin's design function) wrote cannot act with
/// a visitor's cookie — a server admin's, say, through `PUT /_node/_local/_config/admins`
/// (issue 46, item 3). CouchDB 3.4.3 sends it with attachments (`[csp]
/// attachments_header_value`) and with shows' and lists' non-JSON answers
/// (`showlist_header_value`).
enum UserContentPolicy {
    static let sandbox = (name: "Content-Security-Policy", value: "sandbox")

    /// A show, list or update answer that is not JSON gets the sandbox, whatever made it
    /// so: a function's `body`, or its `json` sent with its own `Content-Type: text/html`.
    static func sandboxed(_ handler: @escaping DesignFunctionAccess.DatabaseHandler) -> DesignFunctionAccess.DatabaseHandler {
        { context, database in
            var response = try await handler(context, database)
            let type = (response.headers["Content-Type"] ?? "").lowercased()
            if !response.headers.contains(sandbox.name), !type.hasPrefix("application/json") {
                response.headers.add(sandbox.name, sandbox.value)
            }
            return response
        }
    }
}
