import FoundationEssentials
import Logging
import SetteeHTTP
import SetteeStore

/// The CouchDB REST API as an `HTTPResponder`: authenticates, finds the route,
/// runs its handler and turns every thrown error into CouchDB's error body.
/// It can be driven in-process (tests) exactly as the HTTP server drives it.
struct CouchRouter: HTTPResponder {
    let state: NodeState
    let router: Router

    init(configuration: NodeConfiguration, directory: DatabaseDirectory,
         javaScript: JavaScriptService = JavaScriptService(),
         authentication: AuthenticationDatabase = AuthenticationDatabase()) {
        let sessions = CookieSession(secret: configuration.secret, timeout: configuration.sessionTimeout,
                                     persistent: configuration.allowPersistentCookies)
        let live = LiveSettings(configuration, authentication: authentication)
        state = NodeState(configuration: configuration, directory: directory,
                          authenticator: Authenticator(admins: live.admins, sessions: sessions,
                                                       users: UserDirectory(directory: directory,
                                                                            authentication: authentication),
                                                       lockout: LoginLockout(configuration.loginLockout)),
                          live: live, javaScript: javaScript)
        router = Router(Routes.table)
    }

    /// Document reads and view queries start on the server's event-loop thread (`LightRequest`).
    func isLight(method: String, target: String) -> Bool { LightRequest.isLight(method: method, target: target) }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        var response: HTTPResponse
        let cors = state.live.cors.value
        var isPreflight = false
        var userName: String?
        do {
            // A CORS preflight is answered before authentication, as CouchDB does.
            if let preflight = cors.preflight(request) {
                response = preflight
                isPreflight = true
            } else {
                response = try await dispatch(request, userName: &userName)
            }
        } catch {
            let couchError = CouchError(mapping: error)
            if couchError.isServerFault && couchError.isFromJavaScript {
                state.javaScript.failureLog.note(couchError.error, client: request.remoteAddress, path: request.rawPath,
                                                 reason: couchError.reason, logger: request.logger)
            } else if couchError.isServerFault {
                request.logger.error("\(request.method) \(request.rawPath) failed: \(String(describing: error))")
            }
            // Refusals at a security boundary: one warning per client a minute at most.
            if couchError.status == 401 || couchError.status == 403 {
                state.authenticator.refusals.note(couchError.error, client: request.remoteAddress, path: request.rawPath,
                                                  reason: couchError.reason, logger: request.logger)
            }
            response = couchError.response
            if couchError.status == 401, let challenge = request.headers["X-CouchDB-WWW-Authenticate"],
               !response.headers.contains("WWW-Authenticate") {
                response.headers.add("WWW-Authenticate", challenge)
            }
        }
        if state.live.allowJSONP.value { response = Self.jsonp(response, for: request, state: state) }
        let requestID = RequestID.forRequest(header: request.headers["X-Couch-Request-ID"])
        response.headers.add("X-Couch-Request-ID", requestID)
        response.logNote = "user=\(userName.map(Self.loggable) ?? "-") id=\(Self.loggable(requestID))"
        // CouchDB (mochiweb) declares the empty content of every 304.
        if response.status == 304 && !response.headers.contains("Content-Length") {
            response.headers.add("Content-Length", "0")
        }
        response.headers.add("X-CouchDB-Body-Time", "0")
        response.headers.add("Server", SetteeVersion.serverHeader)
        response.headers.add("Date", HTTPDate.now())
        let elapsed = ContinuousClock.now - started
        state.stats.record(method: request.method, status: response.status,
                           milliseconds: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        // A preflight's answer has its own headers (CouchDB's `send_response_no_cors`).
        if cors.enabled, !isPreflight, let origin = request.headers["Origin"] { cors.decorate(&response, origin: origin) }
        return response
    }

    /// - Parameter userName: set to who sent the request once that is known, for the log.
    private func dispatch(_ original: HTTPRequest, userName: inout String?) async throws -> HTTPResponse {
        var request = original
        if let override = Self.methodOverride(original) { request.method = override }
        let plusAsSpace = state.live.decodePlusToSpace.value
        guard let segments = request.pathSegments(plusAsSpace: plusAsSpace) else { throw Self.undecodablePath(request) }
        guard let items = request.queryItems(plusAsSpace: plusAsSpace) else {
            throw CouchError.badRequest("invalid_url_encoding")  // mochiweb's unquote failing, as CouchDB says
        }
        let user = try await state.authenticator.user(for: request)
        userName = user.name
        if user.name == nil { try state.live.admitAnonymous(method: request.method, path: segments) }
        guard let match = router.match(segments) else {
            throw CouchError.notFound("Database does not exist.")
        }
        guard let handler = match.handler(for: request.method) else {
            let allowed = match.allowedMethods.joined(separator: ",")
            throw CouchError(405, "method_not_allowed", "Only \(allowed) allowed", headers: [("Allow", allowed)])
        }
        let context = RequestContext(request: request, user: user, node: state, parameters: match.parameters,
                                     query: QueryOptions(items: items))
        var response = try await handler(context)
        if user.name != nil, !response.headers.contains("Set-Cookie"),
           let refreshed = await state.authenticator.refreshedCookie(for: request) {
            response.headers.add("Set-Cookie", refreshed)
        }
        return response
    }
}

extension CouchRouter {
    /// Methods `X-HTTP-Method-Override` may name; it counts on a POST only, as in
    /// `chttpd:handle_request_int` (for clients that cannot send PUT or DELETE).
    static let overridableMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "CONNECT", "COPY"]

    /// `text` for a log line: printable ASCII kept, anything else (a newline in a user
    /// name could forge a line) as `?`, and at most 64 characters.
    static func loggable(_ text: String) -> String {
        // Most names and request ids are short printable ASCII already: kept as they are, with
        // no copy (this runs twice for every request's log line).
        if text.utf8.count <= 64, text.utf8.allSatisfy({ $0 >= 0x21 && $0 < 0x7f }) { return text }
        return String(text.unicodeScalars.prefix(64).map { $0.value >= 0x21 && $0.value < 0x7f ? Character($0) : "?" })
    }

    /// `response` as JSONP when the request names a callback (`[chttpd] allow_jsonp`).
    static func jsonp(_ response: HTTPResponse, for request: HTTPRequest, state: NodeState) -> HTTPResponse {
        do {
            guard let callback = try JSONP.callback(request, plusAsSpace: state.live.decodePlusToSpace.value) else {
                return response
            }
            return JSONP.wrap(response, callback: callback)
        } catch {
            return CouchError(mapping: error).response
        }
    }

    static func methodOverride(_ request: HTTPRequest) -> String? {
        guard request.method == "POST", let override = request.headers["X-HTTP-Method-Override"],
              overridableMethods.contains(override) else { return nil }
        return override
    }

    /// A path segment that is not percent-encoded UTF-8: in the database
    /// position an illegal database name, past it an illegal document id.
    static func undecodablePath(_ request: HTTPRequest) -> CouchError {
        let raw = request.rawPath.split(separator: "/")
        // `%` not followed by two hex digits: CouchDB cannot unquote the path at all.
        if raw.contains(where: hasBadEscape) { return CouchError.badRequest("invalid_url_encoding") }
        let isDatabaseName = raw.first.map { PercentDecoding.decode($0, plusAsSpace: false) == nil } ?? false
        // A read looks the name up as bytes and finds nothing, as CouchDB does (checked on 3.4.3).
        if request.method == "GET" || request.method == "HEAD" {
            return CouchError.notFound(isDatabaseName ? "Database does not exist." : "missing")
        }
        if isDatabaseName {
            return CouchError(400, "illegal_database_name", "Database names must be valid UTF-8")
        }
        return CouchError(400, "illegal_docid", "Document id must be valid UTF-8")
    }
}

extension CouchRouter {
    static func hasBadEscape(_ segment: Substring) -> Bool {
        let bytes = Array(segment.utf8)
        return bytes.indices.contains { index in
            bytes[index] == UInt8(ascii: "%") && !(index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2]))
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

/// Versions reported by `GET /`.
enum SetteeVersion {
    static let version = "0.1.0"
    /// The CouchDB API version Settee matches; clients check it.
    static let couchDBVersion = "3.4.3"
    /// The `Server` header of every response, built once.
    static let serverHeader = "Settee/\(version) (CouchDB/\(couchDBVersion))"
}
