import Foundation
import SetteeJSON
import SetteeTestSupport
import Testing

/// `GET /_node/_local/_system` shows what the caps bound (issue 45, "Limits and bad
/// input"): open connections and their cap, clients of streamed `_changes` feeds, open
/// descriptors and the descriptor limit, beside CouchDB's own fields.
@Suite(.serialized) struct SystemCountsTests {
    static let auth = "Authorization: Basic "
        + Data("\(SetteeProcess.defaultAdmin.name):\(SetteeProcess.defaultAdmin.password)".utf8).base64EncodedString()

    static func system(_ settee: SetteeProcess) throws -> [String: Int] {
        let json = try settee.adminRequest("GET", "/_node/_local/_system").json
        var counts: [String: Int] = [:]
        for key in ["open_connections", "max_connections", "clients_requesting_changes", "open_os_files",
                    "os_file_limit", "open_databases", "max_dbs_open", "uptime"] {
            counts[key] = json?[key]?.intValue
        }
        return counts
    }

    /// Polls `_system` until `condition` holds or 10 s pass; returns the last counts.
    static func system(_ settee: SetteeProcess, until condition: ([String: Int]) -> Bool) throws -> [String: Int] {
        let deadline = Date().addingTimeInterval(10)
        var counts = try system(settee)
        while !condition(counts), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)  // a poll with a deadline, not synchronisation
            counts = try system(settee)
        }
        return counts
    }

    static func openFeed(_ settee: SetteeProcess, _ feed: String) throws -> RawConnection {
        let connection = try RawConnection(port: settee.baseURL.port ?? 0)
        try connection.send("GET /db/_changes?feed=\(feed)&since=now&heartbeat=10000 HTTP/1.1\r\nHost: x\r\n\(auth)\r\n\r\n")
        #expect(try connection.read(until: { $0.contains("\r\n\r\n") }, timeout: 10), "feed headers")
        #expect(connection.received.hasPrefix("HTTP/1.1 200"))
        return connection
    }

    @Test func feedsConnectionsAndDescriptorsAreCounted() throws {
        let dir = try TempDirectory(prefix: "systemcounts")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/db").status == 201)
        var feeds = try [Self.openFeed(settee, "continuous"), Self.openFeed(settee, "continuous"),
                         Self.openFeed(settee, "eventsource")]
        let open = try Self.system(settee) { $0["clients_requesting_changes"] == 3 }
        #expect(open["clients_requesting_changes"] == 3)
        // The three feeds and the request asking.
        #expect((open["open_connections"] ?? 0) >= 4)
        let limit = open["os_file_limit"] ?? 0
        #expect(limit > 0 && (open["open_os_files"] ?? .max) <= limit)
        #expect((open["max_connections"] ?? 0) > 0 && (open["max_connections"] ?? .max) < limit)
        #expect(open["max_dbs_open"] != nil && open["uptime"] != nil, "CouchDB's and the earlier fields stay")
        // CouchDB's own figures from /proc/self/status ("VmRSS:\t  1234 kB": read as 0 before).
        let json = try settee.adminRequest("GET", "/_node/_local/_system").json
        #expect((json?["memory"]?["rss"]?.intValue ?? 0) > 1_000_000)
        #expect((json?["threads"]?.intValue ?? 0) > 1)

        feeds.removeAll()
        let closed = try Self.system(settee) { $0["clients_requesting_changes"] == 0 && $0["open_connections"] == 1 }
        #expect(closed["clients_requesting_changes"] == 0, "a gone client's feed is no longer counted")
        #expect(closed["open_connections"] == 1, "only the request asking")
    }

    /// A connection the server keeps, answered `GET /_up`: one refused while the server has
    /// yet to see the previous status request's connection close (it counts until then) is
    /// made again, until 10 s pass.
    static func admitted(port: Int) throws -> RawConnection {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let connection = try RawConnection(port: port)
            try connection.send("GET /_up HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try connection.read(until: { $0.contains("\"status\":\"ok\"") || $0.contains(" 503 ") }, timeout: 10)
            if !connection.received.contains(" 503 ") || Date() >= deadline { return connection }
        }
    }

    /// `[settee] max_connections` caps clients; the next one gets CouchDB-style JSON
    /// with a reason and a 503, and the server logs it once, not once a client.
    @Test func theConnectionCapIsConfiguredAndShown() throws {
        let dir = try TempDirectory(prefix: "conncap")
        let ini = dir.appending("settee.ini")
        try "[settee]\nmax_connections = 3\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", ini])
        defer { settee.kill(SIGKILL) }
        #expect(try Self.system(settee)["max_connections"] == 3)
        _ = try Self.system(settee) { $0["open_connections"] == 1 }  // the previous request's connection is gone
        let held = try (0..<3).map { _ in try Self.admitted(port: settee.baseURL.port ?? 0) }
        #expect(held.allSatisfy { $0.received.contains("\"status\":\"ok\"") })
        for _ in 0..<2 {
            let refused = try RawConnection(port: settee.baseURL.port ?? 0)
            #expect(try refused.isClosedByPeer(timeout: 10))
            #expect(refused.received.hasPrefix("HTTP/1.1 503"))
            #expect(refused.received.contains(#"{"error":"service_unavailable","reason":"Too many connections"#))
        }
        #expect(settee.output.components(separatedBy: "turning clients away").count == 2, "logged once")
    }
}
