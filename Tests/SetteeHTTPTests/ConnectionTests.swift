import Logging
@testable import SetteeHTTP
import Testing

/// Where a connection's requests run: light ones (`HTTPResponder.isLight`, no body) on the
/// server's event-loop thread, the others on the cooperative pool (`Connection.run`).
@Suite struct ConnectionTests {
    private static func withLoopServer(loops: Int = 2, _ body: (Int) async throws -> Void) async throws {
        var config = ServerConfiguration()
        config.bindAddresses = ["127.0.0.1"]
        config.port = 0
        config.eventLoops = loops
        let server = HTTPServer(configuration: config, responder: LoopResponder(), logger: Logger(label: "test"))
        let ports = try server.start()
        do {
            try await body(ports[0])
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    private static func get(_ path: String, on client: RawClient) async throws -> String {
        await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
        return try await client.response().body
    }

    /// One keep-alive connection going from light to other requests and back: each runs
    /// where its kind runs, in order.
    @Test func lightRequestsRunOnTheLoopAndOthersOnThePool() async throws {
        try await Self.withLoopServer { port in
            let client = try RawClient(port: port)
            #expect(try await Self.get("/light", on: client) == "loop")
            #expect(try await Self.get("/light", on: client) == "loop")
            #expect(try await Self.get("/other", on: client) == "pool")
            #expect(try await Self.get("/other", on: client) == "pool")
            #expect(try await Self.get("/light", on: client) == "loop")
        }
    }

    /// A request with a body is never served on the loop, whatever the responder says:
    /// reading an upload is no light work.
    @Test func aRequestWithABodyRunsOnThePool() async throws {
        try await Self.withLoopServer { port in
            let client = try RawClient(port: port)
            await client.send("POST /light HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            #expect(try await client.response().body == "pool")
            #expect(try await Self.get("/light", on: client) == "loop")
        }
    }

    /// Connections dealt to different loops each run their light requests on their own loop.
    @Test func everyLoopServesItsConnectionsLightRequests() async throws {
        try await Self.withLoopServer(loops: 3) { port in
            let clients = try (0..<6).map { _ in try RawClient(port: port) }
            var threads: Set<String> = []
            for client in clients {
                await client.send("GET /light HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try await client.response()
                #expect(response.body == "loop")
                threads.insert(response.headers["X-Thread"] ?? "")
            }
            #expect(threads.count == 3)
        }
    }

    /// Pipelined requests of both kinds are answered in order, each where its kind runs.
    @Test func pipelinedRequestsOfBothKindsAnsweredInOrder() async throws {
        try await Self.withLoopServer { port in
            let client = try RawClient(port: port)
            let paths = ["/light", "/other", "/other", "/light", "/other", "/light"]
            await client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            for path in paths {
                #expect(try await client.response().body == (path == "/light" ? "loop" : "pool"))
            }
        }
    }
}
