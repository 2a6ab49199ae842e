import Foundation
import Logging
import SetteeHTTP
@testable import SetteeReplicator
import Synchronization

/// An HTTP proxy in front of a real server that misbehaves on cue: the peer a
/// replicator meets on a bad network or in front of a broken server. Each request
/// is passed to `fault` with how many requests of that path kind came before it;
/// nil forwards it untouched.
final class FaultyProxy: HTTPResponder, @unchecked Sendable {  // `server`, `base`: set once in start(), before any request
    enum Fault {
        /// Answer this status with a CouchDB error body, without forwarding.
        case status(Int)
        /// Forward, then replace the answer's body with bytes that are not JSON.
        case garbage
        /// Forward, then send half the body and drop the connection.
        case truncate
        /// Forward, then answer its status with no body: what a stopping server sends for
        /// a longpoll `_changes` it ends (a chunked answer ended at once, then the close).
        case emptyBody
        /// Never answer (until the proxy stops).
        case stall
        /// Forward, then change the JSON answer.
        case rewrite(@Sendable (inout Any) -> Void)
    }

    private let upstream: String
    private let session = CurlSession(maxConnections: 8)
    private let fault: @Sendable (HTTPRequest, Int) -> Fault?
    private let counts = Mutex<[String: Int]>([:])
    private let stalled = Mutex<[CheckedContinuation<Void, Never>]>([])
    private var server: HTTPServer?
    private(set) var base = ""

    /// - Parameter upstream: `http://127.0.0.1:PORT` of the real server (no credentials:
    ///   the client's Authorization header is forwarded).
    init(upstream: String, fault: @escaping @Sendable (HTTPRequest, Int) -> Fault?) {
        self.upstream = upstream
        self.fault = fault
    }

    func start() throws {
        var config = ServerConfiguration()
        config.port = 0
        let server = HTTPServer(configuration: config, responder: self, logger: Logger(label: "proxy"))
        base = "http://127.0.0.1:\(try server.start()[0])"
        self.server = server
    }

    func stop() async {
        for waiter in stalled.withLock({ s in defer { s = [] }; return s }) { waiter.resume() }
        await server?.shutdown()
    }

    /// Requests seen for each kind (`_changes`, `_bulk_get`, `_bulk_docs`, `_revs_diff`,
    /// `doc`...), or for a method and kind (`PUT doc`).
    func count(_ kind: String) -> Int { counts.withLock { $0[kind] ?? 0 } }

    static func kind(_ path: Substring) -> String {
        if path.contains("/_local/") { return "_local" }
        return path.split(separator: "/").last.map(String.init).flatMap { $0.hasPrefix("_") ? $0 : nil } ?? "doc"
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let kind = Self.kind(request.rawPath)
        let seen = counts.withLock { c -> Int in
            defer {
                c[kind, default: 0] += 1
                c[request.method + " " + kind, default: 0] += 1
            }
            return c[kind] ?? 0
        }
        let fault = fault(request, seen)
        if case .status(let status)? = fault {
            return HTTPResponse(status: status, headers: ["Content-Type": "application/json"],
                                body: .bytes(Array(#"{"error":"injected","reason":"fault"}"#.utf8)))
        }
        if case .stall? = fault {
            await withCheckedContinuation { continuation in stalled.withLock { $0.append(continuation) } }
            return HTTPResponse(status: 503)
        }
        var headers: [(String, String)] = []
        for (name, value) in request.headers where !["host", "content-length", "connection"].contains(name.lowercased()) {
            headers.append((name, value))
        }
        let body = (try? await request.body.collect(upTo: 64 << 20)) ?? []
        guard let answer = try? await session.send(RemoteRequest(
            method: request.method, url: upstream + String(request.target), headers: headers,
            body: request.method == "GET" || request.method == "HEAD" ? nil : body)) else {
            return HTTPResponse(status: 502)
        }
        var bytes = answer.body
        switch fault {
        case .garbage?: bytes = Array("{\"results\":[{\"id\":".utf8) + [0xFF, 0xFE]
        case .rewrite(let change)?:
            if var object = try? JSONSerialization.jsonObject(with: Data(bytes)) {
                change(&object)
                bytes = Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data(bytes))
            }
        case .emptyBody?: bytes = []
        case .truncate?:
            let half = Array(bytes.prefix(bytes.count / 2))
            return HTTPResponse(status: answer.status, headers: ["Content-Type": "application/json"], body: .stream { writer in
                try await writer.write(half)
                throw CancellationError()  // the connection is dropped mid-body
            })
        default: break
        }
        var answerHeaders: HTTPHeaders = ["Content-Type": answer.header("content-type") ?? "application/json"]
        if let cookie = answer.header("set-cookie") { answerHeaders.add("Set-Cookie", cookie) }
        return HTTPResponse(status: answer.status, headers: answerHeaders, body: .bytes(bytes))
    }
}
