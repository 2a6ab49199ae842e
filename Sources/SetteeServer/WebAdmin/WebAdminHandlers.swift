import SetteeHTTP

/// `/_utils`: the web admin (`WebAdminPage`, `WebAdminScript`), served to anyone: it
/// holds no data and logs in through `/_session` like any client. `/_utils` without
/// the slash redirects, as CouchDB's does, so relative asset paths resolve.
enum WebAdminHandlers {
    /// `/_utils/` is the page; `/_utils` (the router drops the empty last segment, the
    /// raw path keeps it) redirects there.
    static func index(_ context: RequestContext) async throws -> HTTPResponse {
        guard context.request.rawPath.hasSuffix("/") else {
            return HTTPResponse(status: 301, headers: ["Location": "/_utils/"])
        }
        return try await asset(context)
    }

    static func asset(_ context: RequestContext) async throws -> HTTPResponse {
        let name = context.parameters[.path] ?? ""
        let (type, text): (String, String)
        switch name {
        case "", "index.html": (type, text) = ("text/html; charset=utf-8", WebAdminPage.html)
        case "style.css": (type, text) = ("text/css; charset=utf-8", WebAdminPage.css)
        case "app.js": (type, text) = ("text/javascript; charset=utf-8", WebAdminScript.javascript + WebAdminReplication.javascript
                                      + WebAdminConflicts.javascript + WebAdminPeers.javascript)
        default: throw CouchError.notFound("missing")
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": type, "Cache-Control": "no-cache"],
                            body: .bytes(Array(text.utf8)))
    }
}
