import Logging
@testable import SetteeHTTP
import Testing

/// Starts a server on 127.0.0.1 port 0, runs `body`, then shuts it down.
private func withServer(
    addresses: [String] = ["127.0.0.1"], configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (HTTPServer, [Int], TestResponder) async throws -> Void
) async throws {
    var config = ServerConfiguration()
    config.bindAddresses = addresses
    config.port = 0
    config.limits.maxHeaderBytes = 1024
    config.limits.maxBodyBytes = 1000
    configure(&config)
    let responder = TestResponder()
    let server = HTTPServer(configuration: config, responder: responder, logger: Logger(label: "test"))
    let ports = try server.start()
    do {
        try await body(server, ports, responder)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

@Suite struct HTTPServerTests {
    @Test func keepAliveServesSeveralRequests() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            for _ in 0..<3 {
                await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                let r = try await client.response()
                #expect(r.status == 200)
                #expect(r.body == "hello")
                #expect(r.headers["Content-Length"] == "5")
                #expect(r.headers["Connection"] == nil)
            }
        }
    }

    /// A client past `maxConnections` is told why (503 with a JSON reason) rather than
    /// dropped without a word, and the connection already open keeps being served.
    @Test func aClientPastTheConnectionCapGetsA503() async throws {
        try await withServer(configure: { $0.maxConnections = 1 }) { _, ports, _ in
            let first = try RawClient(port: ports[0])
            await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.response().status == 200)
            let second = try RawClient(port: ports[0])
            let refused = try await second.response()
            #expect(refused.status == 503)
            #expect(refused.body.contains(#""error":"service_unavailable""#))
            #expect(refused.headers["Connection"] == "close")
            await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.response().body == "hello")
        }
    }

    /// A TLS client past the cap gets a fatal `internal_error` alert with no handshake
    /// (answering 503 would cost the handshake the cap exists to save), so it fails
    /// saying the server refused rather than with a bare end of stream; the connection
    /// already open keeps being served.
    @Test func aTLSClientPastTheConnectionCapGetsAnInternalErrorAlert() async throws {
        try await TLSTestServer.run(configure: { $0.maxConnections = 1 }) { port, _ in
            let first = try await TLSTestClient(port: port)
            #expect(try await first.request("GET", "/hello").status == 200)
            do {
                _ = try await TLSTestClient(port: port)
                Issue.record("a second TLS client completed its handshake past a cap of 1")
            } catch TLSTestClient.Failure.handshake(let reason) {
                #expect(reason.contains("alert internal error"), "\(reason)")
            }
            #expect(try await first.request("GET", "/hello").body == Array("hello".utf8))
        }
    }

    @Test func pipelinedRequestsAnsweredInOrder() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nonePOST /echo HTTP/1.1\r\n"
                              + "Transfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\nGET /hello HTTP/1.1\r\n\r\n")
            #expect(try await client.response().body == "one")
            #expect(try await client.response().body == "two")
            #expect(try await client.response().body == "hello")
        }
    }

    @Test func chunkedUploadSplitAcrossWrites() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhel")
            await client.send("lo\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n")
            #expect(try await client.response().body == "hello world")
        }
    }

    @Test func expectContinueSentWhenBodyRead() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("PUT /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            #expect(try await client.response().status == 100)
            await client.send("data")
            let r = try await client.response()
            #expect(r.body == "data")
            #expect(r.headers["Connection"] == nil)
        }
    }

    @Test func expectContinueUnreadBodyClosesWithout100() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("PUT /ignore HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let r = try await client.response()
            #expect(r.status == 200)
            #expect(r.headers["Connection"] == "close")
            #expect(await client.readToEnd() == "")
        }
    }

    @Test func unreadSmallBodyIsDrainedAndConnectionKept() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("PUT /ignore HTTP/1.1\r\nContent-Length: 4\r\n\r\nbodyGET /hello HTTP/1.1\r\n\r\n")
            #expect(try await client.response().body == "ignored")
            #expect(try await client.response().body == "hello")
        }
    }

    @Test func streamedResponseIsChunked() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("GET /stream HTTP/1.1\r\n\r\n")
            let r = try await client.response()
            #expect(r.headers["Transfer-Encoding"] == "chunked")
            #expect(r.body == "abbccc")
            await client.send("GET /stream HTTP/1.0\r\n\r\n")
            let old = try await client.response()
            #expect(old.headers["Transfer-Encoding"] == nil)
            #expect(old.body == "abbccc")  // delimited by close for HTTP/1.0
        }
    }

    @Test func headHasHeadersButNoBody() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("HEAD /hello HTTP/1.1\r\n\r\nGET /hello HTTP/1.1\r\n\r\n")
            let head = try await client.response(head: true)
            #expect(head.headers["Content-Length"] == "5")
            #expect(try await client.response().body == "hello")
        }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 2000))\r\n\r\n", 431),
        ("PUT /echo HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", 413),
        ("GARBAGE\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("GET /hello HTTP/2.0\r\n\r\n", 505),
    ])
    func framingErrorsAreAnsweredThenClosed(request: String, status: Int) async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send(request)
            let r = try await client.response()
            #expect(r.status == status)
            #expect(r.headers["Connection"] == "close")
            #expect(r.headers["Date"]?.hasSuffix(" GMT") == true)  // RFC 9110 §6.6.1, even here
            #expect(await client.readToEnd() == "")
        }
    }

    @Test func http10ClosesByDefault() async throws {
        try await withServer { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("GET /hello HTTP/1.0\r\n\r\n")
            let r = try await client.response()
            #expect(r.body == "hello")
            #expect(r.headers["Connection"] == "close")
            #expect(await client.readToEnd() == "")
        }
    }

    @Test func headerTimeoutAnswers408() async throws {
        try await withServer(configure: { $0.headerTimeout = .milliseconds(200) }) { _, ports, _ in
            let client = try RawClient(port: ports[0])
            await client.send("GET /hel")
            #expect(try await client.response().status == 408)
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        guard (try? Socket.listen(address: "::1", port: 0))?.close() != nil else { return }  // no IPv6 here
        try await withServer(addresses: ["127.0.0.1", "::1"]) { _, ports, _ in
            #expect(ports.count == 2)
            let client = try RawClient(host: "::1", port: ports[1])
            await client.send("GET /hello HTTP/1.1\r\n\r\n")
            #expect(try await client.response().body == "hello")
        }
    }

    @Test func shutdownFinishesInFlightRequestAndClosesIdle() async throws {
        try await withServer { server, ports, responder in
            let idle = try RawClient(port: ports[0])
            await idle.send("GET /hello HTTP/1.1\r\n\r\n")
            _ = try await idle.response()
            let busy = try RawClient(port: ports[0])
            await busy.send("GET /slow HTTP/1.1\r\n\r\n")
            var arrivals = responder.arrived.makeAsyncIterator()
            _ = await arrivals.next()
            let stopping = Task { await server.shutdown() }
            #expect(await idle.readToEnd() == "")  // idle keep-alive connection closed
            responder.release()
            let r = try await busy.response()
            #expect(r.body == "slow")
            #expect(r.headers["Connection"] == "close")
            await stopping.value
            await server.run()  // returns at once after shutdown
        }
    }
}
