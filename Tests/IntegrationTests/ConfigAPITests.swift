import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `/_node/_local/_config` against the real binary and its ini file (issue 27): writes
/// land in the file with its comments kept and survive a restart, admin passwords are
/// hashed there, `X-Couch-Persist: false` stays out of it, a file that cannot be written
/// leaves everything as it was, and `[log] level` changes what is logged at once.
@Suite(.serialized) struct ConfigAPITests {
    static let auth = ("Authorization", "Basic " + Data("admin:test-password".utf8).base64EncodedString())

    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, _ body: String? = nil,
                     headers: [(String, String)] = []) throws -> TestResponse {
        try TestHTTPClient.request(method, URL(string: path, relativeTo: settee.baseURL)!.absoluteURL,
                                   headers: [auth] + headers, body: Array((body ?? "").utf8))
    }

    static func start(_ dir: TempDirectory, ini: String) throws -> (SetteeProcess, String) {
        let path = dir.appending("settee.ini")
        try ini.write(toFile: path, atomically: true, encoding: .utf8)
        return (try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", path]), path)
    }

    @Test func writesLandInTheIniFileWithItsCommentsAndSurviveARestart() throws {
        let dir = try TempDirectory(prefix: "config-api")
        let original = "; the operator's note\n[couchdb]\n; why this size\nmax_document_size = 4000000\n"
        var (settee, path) = try Self.start(dir, ini: original)
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/couchdb/max_document_size", "\"300\"").json == "4000000")
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/uuids/algorithm", "\"utc_random\"").status == 200)
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/admins/ops", "\"ops-password\"").status == 200)
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/scratch/temp", "\"x\"",
                              headers: [("X-Couch-Persist", "false")]).status == 200)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("; the operator's note\n[couchdb]\n; why this size\nmax_document_size = 300\n"), "\(text)")
        #expect(text.contains("algorithm = utc_random"))
        #expect(text.contains("ops = -pbkdf2:sha256-") && !text.contains("ops-password"))
        #expect(!text.contains("scratch") && !text.contains("temp"))
        // The new admin works at once; the small limit too.
        let ops = ("Authorization", "Basic " + Data("ops:ops-password".utf8).base64EncodedString())
        #expect(try TestHTTPClient.request("PUT", settee.baseURL.appendingPathComponent("db"), headers: [ops]).status == 201)
        #expect(try Self.call(settee, "PUT", "/db/big", "{\"text\":\"" + String(repeating: "x", count: 400) + "\"}",
                              headers: [("Content-Type", "application/json")]).status == 413)

        settee.kill(SIGTERM)
        #expect(try settee.waitForExit() == 0)
        settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", path])
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/couchdb/max_document_size").json == "300")
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/scratch/temp").status == 404)
        let ids = try Self.call(settee, "GET", "/_uuids?count=2").json?["uuids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(ids.count == 2 && ids.allSatisfy { $0.count == 32 } && ids[0] < ids[1], "utc_random ids rise: \(ids)")
        // Deleting a key takes it out of the file and the limit back to its default.
        #expect(try Self.call(settee, "DELETE", "/_node/_local/_config/couchdb/max_document_size").json == "300")
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("max_document_size ="))
        #expect(try Self.call(settee, "PUT", "/db/big", "{\"text\":\"" + String(repeating: "x", count: 400) + "\"}",
                              headers: [("Content-Type", "application/json")]).status == 201)
    }

    @Test func aFileThatCannotBeWrittenChangesNothing() throws {
        let dir = try TempDirectory(prefix: "config-readonly")
        let (settee, path) = try Self.start(dir, ini: "[couchdb]\nmax_document_size = 4000000\n")
        defer { settee.kill(SIGKILL) }
        // The temporary file the write goes through cannot be made (a directory holds its
        // name: refused even to root, unlike a read-only mode).
        try FileManager.default.createDirectory(atPath: path + ".settee-tmp", withIntermediateDirectories: false)
        let refused = try Self.call(settee, "PUT", "/_node/_local/_config/couchdb/max_document_size", "\"300\"")
        #expect(refused.status == 400 && refused.json?["error"] == "bad_request", "\(refused.text)")
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/couchdb/max_document_size").json == "4000000")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "[couchdb]\nmax_document_size = 4000000\n")
    }

    @Test func theLogLevelChangesWhileRunning() throws {
        let dir = try TempDirectory(prefix: "config-log")
        let (settee, _) = try Self.start(dir, ini: "[log]\nlevel = warning\n")
        defer { settee.kill(SIGKILL) }
        // At warning, requests are not logged (the access log is info).
        _ = try Self.call(settee, "GET", "/marker-before")
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/log/level", "\"info\"").json == "warning")
        _ = try Self.call(settee, "GET", "/marker-after")
        #expect(settee.waitForOutput(containing: "/marker-after", timeout: 10))
        #expect(!settee.output.contains("/marker-before"))
        let bad = try Self.call(settee, "PUT", "/_node/_local/_config/log/level", "\"loud\"")
        #expect(bad.status == 400 && bad.json?["error"] == "bad_request")
    }

    /// A key declared once in the table (`ConfigKeys`) is loaded from its variable as from the
    /// file, shown by `_config` as the value in force, applied by the running server (before,
    /// the file's `[log] level` was applied again over `SETTEE_LOG_LEVEL` once the server
    /// started), kept over the file by `_reload`, and changed live like any live key; a
    /// start-only key is refused as before, and an unknown one kept and shown.
    @Test func aVariableWinsOverTheFileInTheRunningServerAndInConfig() throws {
        let dir = try TempDirectory(prefix: "config-env")
        let path = dir.appending("settee.ini")
        try "[log]\nlevel = warning\n".write(toFile: path, atomically: true, encoding: .utf8)
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", path],
                                             environment: ["SETTEE_LOG_LEVEL": "info"])
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/log/level").json == "info")
        _ = try Self.call(settee, "GET", "/marker-info")
        #expect(settee.waitForOutput(containing: "/marker-info", timeout: 10), "info from SETTEE_LOG_LEVEL is in force")
        #expect(try Self.call(settee, "POST", "/_node/_local/_config/_reload").status == 200)
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/log/level").json == "info")
        // The flag's port is shown as [chttpd] port, and refused live as a start-only key.
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/chttpd/port").json?.stringValue
            == String(settee.baseURL.port ?? -1))
        let refused = try Self.call(settee, "PUT", "/_node/_local/_config/chttpd/port", "\"5999\"")
        #expect(refused.status == 403 && refused.json?["error"] == "forbidden", "\(refused.text)")
        // Live, from the table's row, at once.
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/log/level", "\"warning\"").json == "info")
        _ = try Self.call(settee, "GET", "/marker-warning")
        _ = try Self.call(settee, "GET", "/marker-last")
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/log/level", "\"info\"").json == "warning")
        _ = try Self.call(settee, "GET", "/marker-info-again")
        #expect(settee.waitForOutput(containing: "/marker-info-again", timeout: 10))
        #expect(!settee.output.contains("/marker-warning") && !settee.output.contains("/marker-last"))
        // Unknown keys as before: kept and shown.
        #expect(try Self.call(settee, "PUT", "/_node/_local/_config/scratch/temp", "\"x\"").json == "")
        #expect(try Self.call(settee, "GET", "/_node/_local/_config/scratch/temp").json == "x")
    }

    @Test func accessLogLinesNameTheUserAndTheRequestIDButNoCredentials() throws {
        let dir = try TempDirectory(prefix: "access-log")
        let (settee, _) = try Self.start(dir, ini: "[log]\nlevel = info\n")
        defer { settee.kill(SIGKILL) }
        let answer = try Self.call(settee, "GET", "/_all_dbs?marker=log")
        let id = try #require(answer.header("X-Couch-Request-ID"))
        let line = "GET /_all_dbs 200"
        #expect(settee.waitForOutput(containing: "id=\(id)", timeout: 10))
        let logged = settee.output.split(separator: "\n").first { $0.contains(line) && $0.contains("id=\(id)") }
        #expect(logged?.contains("user=admin") == true, "\(settee.output)")
        #expect(logged?.contains(" \(answer.body.count) B") == true, "\(String(describing: logged))")
        _ = try TestHTTPClient.request("GET", settee.baseURL.appendingPathComponent("_session"))
        #expect(settee.waitForOutput(containing: "user=- id=", timeout: 10))
        #expect(!settee.output.contains("test-password"))
    }

    @Test func prometheusAdditionalPortServesMetricsWithoutCredentials() throws {
        let dir = try TempDirectory(prefix: "metrics-port")
        let port = try FreePort.find()
        let (settee, _) = try Self.start(dir, ini: "[prometheus]\nadditional_port = true\nport = \(port)\n")
        defer { settee.kill(SIGKILL) }
        #expect(settee.waitForOutput(containing: "Settee metrics on http://127.0.0.1:\(port)/_node/_local/_prometheus"))
        _ = try Self.call(settee, "GET", "/")
        let metrics = try TestHTTPClient.request("GET", URL(string: "http://127.0.0.1:\(port)/_node/_local/_prometheus")!)
        #expect(metrics.status == 200 && metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
        let total = metrics.text.split(separator: "\n").first { $0.hasPrefix("couchdb_httpd_requests_total ") }
        #expect((total?.split(separator: " ").last.flatMap { Int($0) } ?? 0) >= 1, "\(metrics.text)")
        // Only metrics there: the API is not.
        #expect(try TestHTTPClient.request("GET", URL(string: "http://127.0.0.1:\(port)/_all_dbs")!).status == 404)
        // On the main port, metrics still need an admin.
        #expect(try TestHTTPClient.request("GET", settee.baseURL.appendingPathComponent("_node/_local/_prometheus")).status == 401)
    }
}
