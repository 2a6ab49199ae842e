import Foundation
import Logging
@testable import SetteeReplicator
import SetteeHTTP
import Synchronization
import SetteeTestSupport
import Testing

/// `CurlSession` against an in-process HTTP server on a free loopback port.
@Suite struct CurlSessionTests {
    /// /hello, /echo, /missing (404), /peer (the client's address), /stream (three
    /// pieces, the last only after `release()`), /never (answers after `release()`).
    final class Responder: HTTPResponder {
        private let gate = Mutex<[CheckedContinuation<Void, Never>]>([])
        private let released = Atomic<Bool>(false)

        func release() {
            released.store(true, ordering: .sequentiallyConsistent)
            for waiter in gate.withLock({ g in defer { g = [] }; return g }) { waiter.resume() }
        }

        private func waitForRelease() async {
            await withCheckedContinuation { continuation in
                let resumeNow = gate.withLock { g -> Bool in
                    if released.load(ordering: .sequentiallyConsistent) { return true }
                    g.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            switch request.rawPath {
            case "/hello": return HTTPResponse(status: 200, headers: ["X-Answer": "42"], body: .bytes(Array("hello".utf8)))
            case "/echo":
                let body = (try? await request.body.collect(upTo: 4 << 20)) ?? []
                return HTTPResponse(status: 200, headers: ["X-Method": request.method], body: .bytes(body))
            case "/peer": return HTTPResponse(status: 200, body: .bytes(Array(request.remoteAddress.utf8)))
            case "/stream":
                return HTTPResponse(status: 200, body: .stream { writer in
                    try await writer.write(Array("one\n".utf8))
                    try await writer.write(Array("two\n".utf8))
                    await self.waitForRelease()
                    try await writer.write(Array("three\n".utf8))
                })
            case "/never":
                await waitForRelease()
                return HTTPResponse(status: 200)
            default: return HTTPResponse(status: 404, body: .bytes(Array(#"{"error":"not_found"}"#.utf8)))
            }
        }
    }

    private func withServer(_ body: (String, Responder) async throws -> Void) async throws {
        var config = ServerConfiguration()
        config.port = 0
        let responder = Responder()
        let server = HTTPServer(configuration: config, responder: responder, logger: Logger(label: "test"))
        let ports = try server.start()
        defer { responder.release() }
        do {
            try await body("http://127.0.0.1:\(ports[0])", responder)
        } catch {
            responder.release()
            await server.shutdown()
            throw error
        }
        responder.release()
        await server.shutdown()
    }

    @Test func answersWithStatusHeadersAndBody() async throws {
        try await withServer { base, _ in
            let session = CurlSession()
            let hello = try await session.send(RemoteRequest(method: "GET", url: base + "/hello"))
            #expect(hello.status == 200 && hello.body == Array("hello".utf8) && hello.header("X-Answer") == "42")
            let missing = try await session.send(RemoteRequest(method: "GET", url: base + "/missing"))
            #expect(missing.status == 404 && missing.body == Array(#"{"error":"not_found"}"#.utf8))
        }
    }

    @Test func bodiesGoOutExactlyWhateverTheMethod() async throws {
        try await withServer { base, _ in
            let session = CurlSession()
            let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            for method in ["POST", "PUT"] {
                let echo = try await session.send(RemoteRequest(method: method, url: base + "/echo", body: payload))
                #expect(echo.status == 200 && echo.header("X-Method") == method && echo.body == payload)
            }
            let empty = try await session.send(RemoteRequest(method: "PUT", url: base + "/echo"))
            #expect(empty.status == 200 && empty.body.isEmpty && empty.header("X-Method") == "PUT")
        }
    }

    /// An upload body (bytes in memory and a spool file) is read by curl as it sends, and
    /// from its first byte again when the same request is sent a second time (as after a
    /// refused session cookie).
    @Test func uploadBodiesAreReadAsSentFromTheStartEachTime() async throws {
        try await withServer { base, _ in
            let dir = try TempDirectory(prefix: "curl-upload")
            defer { dir.remove() }
            let spool = try SpoolFile(directory: dir.path)
            let fileBytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) }
            try spool.append(fileBytes)
            var request = RemoteRequest(method: "PUT", url: base + "/echo")
            request.upload = UploadBody([.bytes(Array("head".utf8)), .file(spool), .bytes(Array("tail".utf8))])
            let session = CurlSession()
            for _ in 0..<2 {
                let echo = try await session.send(request)
                #expect(echo.status == 200 && echo.header("X-Method") == "PUT")
                #expect(echo.body == Array("head".utf8) + fileBytes + Array("tail".utf8))
            }
        }
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        try await withServer { base, _ in
            let session = CurlSession(maxConnections: 1)
            var peers: Set<String> = []
            for _ in 0..<5 {
                peers.insert(String(decoding: try await session.send(RemoteRequest(method: "GET", url: base + "/peer")).body,
                                    as: UTF8.self))
            }
            #expect(peers.count == 1)
        }
    }

    @Test func manyConcurrentRequestsAllComeBackRight() async throws {
        try await withServer { base, _ in
            let session = CurlSession(maxConnections: 4)
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        let body = Array("request \(i)".utf8)
                        return try await session.send(RemoteRequest(method: "POST", url: base + "/echo", body: body)).body == body
                    }
                }
                for try await ok in group { #expect(ok) }
            }
        }
    }

    @Test func streamsDeliverPiecesBeforeTheEnd() async throws {
        try await withServer { base, responder in
            let session = CurlSession()
            let seen = Mutex<[UInt8]>([])
            // The server holds back its last piece until released: the first two must arrive on their own.
            let (status, _) = try await session.stream(RemoteRequest(method: "GET", url: base + "/stream")) { bytes in
                let text = seen.withLock { $0.append(contentsOf: bytes); return String(decoding: $0, as: UTF8.self) }
                if text == "one\ntwo\n" { responder.release() }
                return true
            }
            #expect(status == 200)
            #expect(seen.withLock { String(decoding: $0, as: UTF8.self) } == "one\ntwo\nthree\n")
            // Stopping early ends the exchange normally.
            let first = Mutex<String>("")
            _ = try await session.stream(RemoteRequest(method: "GET", url: base + "/stream")) { bytes in
                first.withLock { $0 += String(decoding: bytes, as: UTF8.self) }
                return false
            }
            #expect(first.withLock { $0 }.hasPrefix("one"))
        }
    }

    @Test func failuresAreErrorsNotAnswers() async throws {
        try await withServer { base, _ in
            let session = CurlSession()
            let closedPort = try FreePort.find()  // bound, then closed: nobody listens
            await #expect {
                _ = try await session.send(RemoteRequest(method: "GET", url: "http://127.0.0.1:\(closedPort)/"))
            } throws: { error in
                // Said in plain words for logs and `_scheduler`: no Swift escaping.
                guard case RemoteError.transport = error else { return false }
                return !"\(error)".contains("\\'") && "\(error)".contains("libcurl error 7")
            }
            let start = ContinuousClock.now
            await #expect(throws: RemoteError.timedOut) {
                _ = try await session.send(RemoteRequest(method: "GET", url: base + "/never", timeout: .milliseconds(300)))
            }
            // Well under the request's default 30 s, which is what this tells apart: a fresh
            // `make test` at load ~30 once took 6.1 s to report the 300 ms timeout.
            #expect(ContinuousClock.now - start < .seconds(15))
            let waiting = Task { try await session.send(RemoteRequest(method: "GET", url: base + "/never")) }
            waiting.cancel()
            await #expect(throws: RemoteError.cancelled) { _ = try await waiting.value }
        }
    }
}
