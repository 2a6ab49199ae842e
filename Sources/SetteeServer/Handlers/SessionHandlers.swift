import SetteeHTTP
import SetteeJSON

/// `/_session` (CouchDB API Reference › Server › Authentication › Cookie
/// Authentication). CouchDB's replicator opens every replication with a
/// form-encoded `POST /_session` and uses the cookie afterwards.
enum SessionHandlers {
    static func get(_ context: RequestContext) async throws -> HTTPResponse {
        let user = context.user
        let method: JSONValue = user.name == nil ? .null
            : (context.headers["Authorization"] != nil ? "default" : "cookie")
        var info: JSONObject = ["authentication_handlers": ["cookie", "default"]]
        if method != .null { info["authenticated"] = method }
        return JSONResponse.ok([
            "ok": true,
            "userCtx": ["name": user.name.map { .string($0) } ?? .null, "roles": .array(user.roles.map { .string($0) })],
            "info": .object(info),
        ])
    }

    static func post(_ context: RequestContext) async throws -> HTTPResponse {
        let (name, password) = try await credentials(context)
        let user: UserContext, hash: String
        do {
            (user, hash) = try await context.node.authenticator.authenticate(name: name, password: password,
                                                                             peer: context.request.remoteAddress)
        } catch let error as CouchError where error.status == 401 {
            return try failedLogin(context, error)
        }
        // Checked after the password and before the cookie, as CouchDB builds `Location`.
        let location = try context.query["next"].map { try redirectLocation($0, context) }
        let cookie = context.node.authenticator.sessions.issue(name: name, passwordHash: hash, now: Authenticator.now())
        let headers: HTTPHeaders = ["Set-Cookie": context.node.authenticator.sessions.header(cookie, now: Authenticator.now())]
        let body: JSONValue = ["ok": true, "name": .string(name), "roles": .array(user.roles.map { .string($0) })]
        return redirecting(to: location, body, headers: headers)
    }

    /// A refused login clears the session cookie and, with `?fail=`, is a 302 there carrying
    /// the same error (couch_httpd_auth:handle_session_req/2; CouchDB 3.4.3 answers so).
    private static func failedLogin(_ context: RequestContext, _ error: CouchError) throws -> HTTPResponse {
        let location = try context.query["fail"].map { try redirectLocation($0, context) }
        var response = redirecting(to: location, ["error": .string(error.error), "reason": .string(error.reason)],
                                   headers: ["Set-Cookie": clearedCookie(context)])
        if location == nil { response.status = error.status }
        for (name, value) in error.headers { response.headers.add(name, value) }
        return response
    }

    /// The cookie a logout or a refused login sends: empty, with the attributes of a fresh one
    /// (couch_httpd_auth:clear_auth_cookie/1: CouchDB 3.4.3 sends `Expires` and `Max-Age` of
    /// the session timeout, not 0); an empty AuthSession is no session.
    private static func clearedCookie(_ context: RequestContext) -> String {
        context.node.authenticator.sessions.header("", now: Authenticator.now())
    }

    static func delete(_ context: RequestContext) async throws -> HTTPResponse {
        let location = try context.query["next"].map { try redirectLocation($0, context) }
        return redirecting(to: location, ["ok": true],
                           headers: ["Set-Cookie": clearedCookie(context)])
    }

    /// 302 to `location` when there is one, else 200.
    private static func redirecting(to location: String?, _ body: JSONValue, headers: HTTPHeaders) -> HTTPResponse {
        guard let location else { return JSONResponse.make(status: 200, body, headers: headers) }
        var response = JSONResponse.make(status: 302, body, headers: headers)
        response.headers.add("Location", location)
        return response
    }

    /// Where `?next=` sends the client: a path on this server, made absolute with the
    /// request's own host as CouchDB 3.4.3's `couch_httpd:absolute_uri/2` makes it, so
    /// `//evil.example/` stays here as `http://HOST//evil.example/`. Anything else
    /// (`http://evil.example/`, `evil`) is CouchDB's 400: never a redirect off-site.
    /// - Throws: 400 `bad_request` "path must begin with a /."
    static func redirectLocation(_ next: String, _ context: RequestContext) throws -> String {
        guard next.hasPrefix("/") else {
            let reason = "path must begin with a /."
            context.node.authenticator.refusals.note("next", client: context.request.remoteAddress,
                                                     path: context.request.rawPath, reason: reason,
                                                     logger: context.logger)
            throw CouchError.badRequest(reason)
        }
        let location = context.absoluteURL(next)
        // No Host (HTTP/1.0): the path alone, where `//x` or `/\x` would name another host.
        guard location.hasPrefix("/") else { return location }
        return "/" + location.drop { $0 == "/" || $0 == "\\" }
    }

    /// `name` (or `username`) and `password` from a form-encoded or JSON body.
    private static func credentials(_ context: RequestContext) async throws -> (String, String) {
        let type = (context.headers["Content-Type"] ?? "").lowercased()
        let limit = context.node.configuration.http.limits.maxBodyBytes
        if type.hasPrefix("application/x-www-form-urlencoded") {
            let bytes = try await context.request.body.collect(upTo: limit)
            let form = HTTPRequest(method: "POST", target: "/?" + String(decoding: bytes, as: UTF8.self))
            guard let items = form.queryItems else { throw CouchError.unauthorized("Name or password is incorrect.") }
            let field = { (key: String) in items.first(where: { $0.name == key }).map { JSONValue.string($0.value) } }
            return try credentials(name: field("name"), username: field("username"), password: field("password"))
        }
        guard type.hasPrefix("application/json") else {
            throw CouchError(415, "bad_content_type", "Content-Type must be 'application/x-www-form-urlencoded' or 'application/json'")
        }
        let body = try await context.jsonBody().object()
        return try credentials(name: body["name"], username: body["username"], password: body["password"])
    }

    /// CouchDB's `couch_httpd_auth:extract_username/1`: `username` may stand for `name`,
    /// one of them is required (400) and they must agree (400); a missing password is "".
    /// A name or password that is not a string is 400 here (CouchDB 3.4.3: 500 `badarg`).
    static func credentials(name: JSONValue?, username: JSONValue?, password: JSONValue?) throws -> (String, String) {
        guard let given = username ?? name else {
            throw CouchError.badRequest("request body must contain a username")
        }
        if let name, let username, name != username {
            throw CouchError.badRequest("request body contains different usernames")
        }
        guard let text = given.stringValue, let secret = password.map({ $0.stringValue }) ?? "" else {
            throw CouchError.badRequest("name and password must be strings")
        }
        return (text, secret)
    }
}
