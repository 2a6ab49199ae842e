import Glibc
import Logging
@testable import SetteeHTTP
import Testing

/// Measures resident memory per idle keep-alive connection (server side plus the
/// client fds, which live in the kernel and not in RSS). Opt-in: SETTEE_MEASURE_IDLE=N.
@Suite struct IdleConnectionCostTests {
    @Test(.enabled(if: getenv("SETTEE_MEASURE_IDLE") != nil))
    func residentMemoryPerIdleConnection() async throws {
        let count = getenv("SETTEE_MEASURE_IDLE").flatMap { Int(String(cString: $0)) } ?? 2000
        var config = ServerConfiguration()
        config.port = 0
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: Logger(label: "m"))
        let ports = try server.start()
        var clients: [RawClient] = []
        // Warm up allocator and task machinery before the baseline.
        for _ in 0..<50 { clients.append(try await Self.idleClient(port: ports[0])) }
        let before = Self.residentKiB()
        for _ in 0..<count { clients.append(try await Self.idleClient(port: ports[0])) }
        let after = Self.residentKiB()
        print("IDLE-COST \(count) idle connections: RSS +\(after - before) KiB, \((after - before) * 1024 / count) bytes each")
        clients = []
        await server.shutdown()
    }

    private static func idleClient(port: Int) async throws -> RawClient {
        let client = try RawClient(port: port)
        await client.send("GET /hello HTTP/1.1\r\n\r\n")
        _ = try await client.response()
        return client
    }

    private static func residentKiB() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:") { return Int(text.split(separator: " ")[1]) ?? 0 }
        }
        return 0
    }
}
