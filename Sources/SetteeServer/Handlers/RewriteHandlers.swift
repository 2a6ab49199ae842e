import SetteeHTTP
import SetteeJSON
import SetteeStore
import SetteeViews

/// `/{db}/_design/{ddoc}/_rewrite/{path}`, any method (CouchDB API Reference › Design
/// Documents › /db/_design/design-doc/_rewrite/path; deprecated in CouchDB 3, still
/// served): the request is rewritten by the design document's `rewrites` — an array of
/// rules (`RewriteRules`) or a JavaScript function of the request object — and answered
/// as the rewritten request, by the same user, relative to the design document
/// (chttpd_rewrite.erl). A rewrite may lead to another; past `rewrite_limit` (100, CouchDB's
/// `[chttpd] rewrite_limit` default) the answer is 400 "Exceeded rewrite recursion limit".
enum RewriteHandlers {
    static let limit = 100

    /// Rewrites made so far for the request being answered.
    @TaskLocal static var depth = 0

    static func rewrite(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        guard depth < limit else { throw CouchError.badRequest("Exceeded rewrite recursion limit") }
        let ddocName = context.parameters[.ddoc] ?? ""
        let design = try await DesignDocuments.revision("_design/" + ddocName, in: database)
        let prefix = [database.name, "_design", ddocName].map(quotePlus)
        let path = (context.parameters[.path] ?? "").split(separator: "/").map(String.init)
        switch design.body["rewrites"] {
        case .array(let list)?:
            guard let (to, query) = try RewriteRules(list).rewrite(method: context.request.method, path: path,
                                                                   query: context.query.items) else {
                throw CouchError.notFound("missing")
            }
            let target = normalized(prefix + to.map(quotePlus)) + queryString(query)
            return try await dispatch(context, method: context.request.method, target: target)
        case .string(let source)?:
            return try await rewriteByFunction(source, design, context, database, prefix: prefix)
        default:
            throw CouchError(404, "rewrite_error", "Invalid path.")
        }
    }

    /// The JavaScript form: the function gets the request object and returns a path, an
    /// object `{path, query, method, headers, body}`, or `{code, headers, body}` to answer at
    /// once; nothing means no rule (couch_query_servers:rewrite/3, render.js runRewrite).
    private static func rewriteByFunction(_ source: String, _ design: DesignDocuments.Revision, _ context: RequestContext,
                                          _ database: Database, prefix: [String]) async throws -> HTTPResponse {
        let function = DesignFunction(code: design.code(database), name: "rewrites", source: source,
                                      scope: .designDocument, failure: "Compilation of the rewrite function failed: ")
        let body = try await RequestObject.body(context)
        var request = try await RequestObject.make(context, database, id: nil, body: body).objectValue ?? JSONObject()
        for field in ["info", "form", "uuid", "id"] { request[field] = nil }
        let result = try await RenderFunctions.run(function, .rewrite, first: "null", request: .object(request),
                                                   service: context.node.javaScript)
        guard case .object(let rewrite) = result else { throw CouchError(404, "rewrite_error", "Invalid path.") }
        let newBody = rewrite["body"]?.stringValue.map { Array($0.utf8) } ?? body ?? []
        var headers = context.request.headers
        for member in rewrite["headers"]?.objectValue ?? JSONObject() {
            guard let value = member.value.stringValue else { throw CouchError(500, "rewrite_error", "bad headers") }
            headers.set(member.key, value)
        }
        if let code = rewrite["code"] { return try immediateResponse(code, rewrite, body: newBody) }
        guard let path = rewrite["path"]?.stringValue else {
            throw CouchError(500, "rewrite_error", "Rewrite result must produce a new path.")
        }
        var query = context.query.items
        if let members = rewrite["query"]?.objectValue {
            query = try members.map { member in
                guard let value = member.value.stringValue else { throw CouchError(500, "rewrite_error", "bad query") }
                return (member.key, value)
            }
        }
        // The function's path is used as written: already encoded, relative to the design document.
        let segments = path.split(separator: "/").map(String.init)
        let method = rewrite["method"]?.stringValue ?? context.request.method
        return try await dispatch(context, method: method, target: normalized(prefix + segments) + queryString(query),
                                  headers: headers, body: newBody)
    }

    /// `{code, headers, body}`: the answer itself (chttpd_rewrite's `send_response`).
    private static func immediateResponse(_ code: JSONValue, _ rewrite: JSONObject, body: [UInt8]) throws -> HTTPResponse {
        guard let status = code.intValue, (200..<600).contains(status) else {
            throw CouchError(500, "rewrite_error", "bad code")
        }
        var response = HTTPResponse(status: status, body: .bytes(body))
        for member in rewrite["headers"]?.objectValue ?? JSONObject() {
            if let value = member.value.stringValue { response.headers.add(member.key, value) }
        }
        return response
    }

    /// Answers the rewritten request as the router would, as the same user.
    private static func dispatch(_ context: RequestContext, method: String, target: String,
                                 headers: HTTPHeaders? = nil, body: [UInt8]? = nil) async throws -> HTTPResponse {
        var request = context.request
        request.method = method
        request.target = target
        if let headers { request.headers = headers }
        if let body {
            request.body = RequestBody(bytes: body)
            request.headers.remove("Transfer-Encoding")
            request.headers.set("Content-Length", String(body.count))
        }
        let plusAsSpace = context.node.live.decodePlusToSpace.value
        guard let segments = request.pathSegments(plusAsSpace: plusAsSpace) else { throw CouchRouter.undecodablePath(request) }
        guard let items = request.queryItems(plusAsSpace: plusAsSpace) else {
            throw CouchError.badRequest("Invalid percent-encoding in the query string")
        }
        guard let match = Routes.router.match(segments) else { throw CouchError.notFound("Database does not exist.") }
        guard let handler = match.handler(for: method) else {
            let allowed = match.allowedMethods.joined(separator: ",")
            throw CouchError(405, "method_not_allowed", "Only \(allowed) allowed", headers: [("Allow", allowed)])
        }
        let inner = RequestContext(request: request, user: context.user, node: context.node,
                                   parameters: match.parameters, query: QueryOptions(items: items))
        return try await $depth.withValue(depth + 1) { try await handler(inner) }
    }

    /// `/`-joined with `.` dropped and `..` taking the segment before it away
    /// (chttpd_rewrite:normalize_path/1).
    static func normalized(_ segments: [String]) -> String {
        var kept: [String] = []
        for segment in segments.flatMap({ $0.split(separator: "/").map(String.init) }) where segment != "." {
            if segment == "..", let last = kept.last, last != ".." { kept.removeLast() } else { kept.append(segment) }
        }
        return "/" + kept.joined(separator: "/")
    }

    private static func queryString(_ items: [(name: String, value: String)]) -> String {
        items.isEmpty ? "" : "?" + items.map { quotePlus($0.name) + "=" + quotePlus($0.value) }.joined(separator: "&")
    }

    /// mochiweb_util:quote_plus: RFC 2396's unreserved characters kept, a space as `+`,
    /// every other byte percent-encoded.
    static func quotePlus(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where "-_.!~*'()".utf8.contains(byte): out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "): out += "+"
            default: out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
