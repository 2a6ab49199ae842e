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
        let (user, hash) = try await context.node.authenticator.authenticate(name: name, password: password,
                                                                             peer: context.request.remoteAddress)
        let cookie = context.node.authenticator.sessions.issue(name: name, passwordHash: hash, now: Authenticator.now())
        let headers: HTTPHeaders = ["Set-Cookie": context.node.authenticator.sessions.header(cookie, now: Authenticator.now())]
        let body: JSONValue = ["ok": true, "name": .string(name), "roles": .array(user.roles.map { .string($0) })]
        if let next = context.query["next"] {
            var response = JSONResponse.make(status: 302, body, headers: headers)
            response.headers.add("Location", next)
            return response
        }
        return JSONResponse.make(status: 200, body, headers: headers)
    }

    static func delete(_ context: RequestContext) async throws -> HTTPResponse {
        JSONResponse.make(status: 200, ["ok": true],
                          headers: ["Set-Cookie": "AuthSession=; Version=1; Path=/; HttpOnly; Max-Age=0"])
    }

    /// `name` and `password` from a form-encoded or JSON body.
    private static func credentials(_ context: RequestContext) async throws -> (String, String) {
        let type = (context.headers["Content-Type"] ?? "").lowercased()
        let limit = context.node.configuration.http.limits.maxBodyBytes
        if type.hasPrefix("application/x-www-form-urlencoded") {
            let bytes = try await context.request.body.collect(upTo: limit)
            let form = HTTPRequest(method: "POST", target: "/?" + String(decoding: bytes, as: UTF8.self))
            guard let items = form.queryItems,
                  let name = items.first(where: { $0.name == "name" })?.value,
                  let password = items.first(where: { $0.name == "password" })?.value
            else { throw CouchError.unauthorized("Name or password is incorrect.") }
            return (name, password)
        }
        guard type.hasPrefix("application/json") else {
            throw CouchError(415, "bad_content_type", "Content-Type must be application/x-www-form-urlencoded or application/json")
        }
        let body = try await context.jsonBody().object()
        guard let name = body["name"]?.stringValue, let password = body["password"]?.stringValue else {
            throw CouchError.unauthorized("Name or password is incorrect.")
        }
        return (name, password)
    }
}
