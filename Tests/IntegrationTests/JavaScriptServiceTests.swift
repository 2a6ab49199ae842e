import Dispatch
import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Synchronization
import Testing

/// Design document JavaScript runs on the node's JavaScript service, off the threads
/// that serve requests (issue #46, item 4): however much of it runs, and however long,
/// a request that runs none is answered at once; calls past what the service queues are
/// refused (503) rather than left to pile up.
@Suite(.serialized) struct JavaScriptServiceTests {
    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, json: String? = nil) throws -> TestResponse {
        try settee.adminRequest(method, path, json: json)
    }

    static func start(_ dir: TempDirectory, ini: String) throws -> SetteeProcess {
        let path = dir.appending("settee.ini")
        try ini.write(toFile: path, atomically: true, encoding: .utf8)
        return try SetteeProcess.start(dataDirectory: dir.appending("data"), extraArguments: ["--config", path])
    }

    @Test func endlessShowsDoNotDelayRequestsThatRunNoJavaScript() throws {
        let dir = try TempDirectory(prefix: "js-service")
        let settee = try Self.start(dir, ini: "[couchdb]\nos_process_timeout = 3000\n")
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "PUT", "/js").status == 201)
        #expect(try Self.call(settee, "PUT", "/js/_design/d", json: #"{"shows":{"loop":"function(doc, req) { while(true){} }"}}"#).status == 201)

        // Eight endless shows at once (the issue's attack), from threads of the test.
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                let status = (try? Self.call(settee, "GET", "/js/_design/d/_show/loop").status) ?? 0
                statuses.withLock { $0.append(status) }
            }
        }
        // While they run, anonymous `GET /` and `/_up` are timed until the last show has answered.
        var slowest: Duration = .zero
        var timed = 0
        while group.wait(timeout: .now()) == .timedOut {
            for path in ["/", "/_up"] {
                let started = ContinuousClock.now
                let response = try TestHTTPClient.get(URL(string: settee.baseURL.absoluteString + path.dropFirst())!)
                #expect(response.status == 200)
                slowest = max(slowest, ContinuousClock.now - started)
                timed += 1
            }
        }
        #expect(timed >= 10)
        #expect(slowest < .milliseconds(500), "slowest GET / or /_up: \(slowest)")
        // Each show was stopped by its time limit (500 os_process_error) or refused for waiting too long (503).
        let answered = statuses.withLock { $0 }
        #expect(answered.count == 8)
        #expect(answered.allSatisfy { $0 == 500 || $0 == 503 }, "\(answered)")
        // And the service still runs JavaScript afterwards.
        #expect(try Self.call(settee, "PUT", "/js/_design/ok", json: #"{"shows":{"s":"function() { return 'ok'; }"}}"#).status == 201)
        #expect(try Self.call(settee, "GET", "/js/_design/ok/_show/s").text == "ok")
    }

    /// A validate_doc_update stopped by its time limit is CouchDB 3.4.3's query server
    /// timing out: 500 `{"error":"os_process_error","reason":"OS process timed out."}`
    /// (couch_os_process.erl `readline`), not 403 `forbidden`, and nothing is written.
    @Test func aValidationStoppedByItsTimeLimitAnswers500OsProcessError() throws {
        let dir = try TempDirectory(prefix: "js-service")
        let settee = try Self.start(dir, ini: "[couchdb]\nos_process_timeout = 1000\n")
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "PUT", "/js").status == 201)
        let loop = #"{"validate_doc_update":"function(n, o) { if (n.loop) { while(true){} } }"}"#
        #expect(try Self.call(settee, "PUT", "/js/_design/v", json: loop).status == 201)

        let stopped = try Self.call(settee, "PUT", "/js/looped", json: #"{"loop":true}"#)
        #expect(stopped.status == 500)
        #expect(stopped.json?["error"]?.stringValue == "os_process_error")
        #expect(stopped.json?["reason"]?.stringValue == "OS process timed out.")
        #expect(try Self.call(settee, "GET", "/js/looped").status == 404)
        #expect(try Self.call(settee, "PUT", "/js/plain", json: "{}").status == 201)
    }

    @Test func callsPastTheQueueAreRefusedWith503() throws {
        let dir = try TempDirectory(prefix: "js-queue")
        let settee = try Self.start(dir, ini: "[couchdb]\nos_process_timeout = 2000\n[settee]\njavascript_threads = 1\njavascript_queue = 1\n")
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "PUT", "/js").status == 201)
        #expect(try Self.call(settee, "PUT", "/js/_design/d", json: #"{"shows":{"loop":"function(doc, req) { while(true){} }"}}"#).status == 201)
        let responses = Mutex<[TestResponse]>([])
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                if let response = try? Self.call(settee, "GET", "/js/_design/d/_show/loop") {
                    responses.withLock { $0.append(response) }
                }
            }
        }
        group.wait()
        let all = responses.withLock { $0 }
        #expect(all.count == 4)
        // One thread and one place in the queue: at most two ran, the rest were refused at once.
        let refused = all.filter { $0.status == 503 }
        #expect(refused.count >= 2)
        #expect(refused.allSatisfy { $0.json?["error"]?.stringValue == "service_unavailable" })
    }

    /// A database admin can make its shows fail at will: the 500s (and 503s) that design
    /// code causes are logged once a minute per client, not once per request.
    @Test func failuresOfDesignCodeAreLoggedOnceAMinutePerClient() throws {
        let dir = try TempDirectory(prefix: "js-faults")
        let settee = try Self.start(dir, ini: "[couchdb]\nos_process_timeout = 5000\n")
        defer { settee.kill(SIGKILL) }
        #expect(try Self.call(settee, "PUT", "/js").status == 201)
        let shows = #"{"shows":{"throws":"function() { throw new Error('boom'); }","bomb":"function() { return 'x'.repeat(2e9); }"},"# +
            #""validate_doc_update":"function(doc) { if (doc.boom) throw new Error('boom'); }"}"#
        #expect(try Self.call(settee, "PUT", "/js/_design/d", json: shows).status == 201)
        for show in ["throws", "bomb", "throws", "bomb", "throws"] {
            let response = try Self.call(settee, "GET", "/js/_design/d/_show/\(show)")
            #expect(response.status == 500)
        }
        for id in ["a", "b"] {
            #expect(try Self.call(settee, "PUT", "/js/\(id)", json: #"{"boom":true}"#).status == 500)
        }
        #expect(settee.waitForOutput(containing: "JavaScript answered render_error from"))
        #expect(try Self.call(settee, "GET", "/_up").status == 200)
        let lines = settee.output.split(separator: "\n")
        let logged = lines.filter { $0.contains("JavaScript answered") }
        #expect(logged.count == 1, "\(logged)")
        #expect(!lines.contains { $0.contains("/js/") && $0.contains(" failed: ") }, "a failure logged per request")
    }
}
