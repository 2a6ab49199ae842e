import Dispatch
import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Synchronization
import Testing

/// The memory one design function call can take is bounded while it runs, not only after
/// (issue #46, item 5): memory bombs that allocate gigabytes inside one native call
/// (`new Uint8Array(2e9).fill(1)`, `'xy'.repeat(5e8)`), several at once, fail with
/// CouchDB's `os_process_error` and leave the server's peak RSS (VmHWM) within a few
/// times the limit; the server keeps answering, ordinary typed arrays and strings still
/// work, and what a call left behind goes back to the system.
@Suite(.serialized) struct JavaScriptMemoryTests {
    static func statusFigure(_ pid: Int32, _ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
              let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
                .flatMap({ Int($0) }) else { return 0 }
        return kilobytes << 10
    }

    /// Starts the peak over from the present RSS (proc(5), /proc/pid/clear_refs "5").
    static func resetPeak(_ pid: Int32) -> Bool {
        guard let file = fopen("/proc/\(pid)/clear_refs", "w") else { return false }
        defer { fclose(file) }
        return fputs("5", file) >= 0
    }

    static let bombs: [String: String] = [
        "buffer": "function() { new Uint8Array(2e9).fill(1); return 'x'; }",
        "rope": "function() { var s = 'xy'.repeat(5e8); return s.slice(0, 2); }",
        "flat": "function() { return 'f' + 'xy'.repeat(2e8).split('').length; }",
        "pad": "function() { return 'p' + 'x'.padStart(1.5e9, 'ab').length; }",
        "sparse": "function() { var a = []; a.length = 3e8; return a.join('ab').slice(0, 1); }",
        "subclass": "function() { class X extends Float64Array {} return 's' + new X(3e8).fill(1).length; }",
        "resizable": "function() { var b = new ArrayBuffer(8, {maxByteLength: 2e9}); b.resize(2e9); return 'r' + new Uint8Array(b).fill(1).length; }",
        "caught": "function() { var n = 0; for (var i = 0; i < 3; i++) try { new Uint8Array(1e9).fill(1); } catch (e) { n++; } return 'c' + n; }",
    ]

    static let designDocument: String = {
        var shows = bombs
        shows["ok"] = "function() { return 'ok'; }"
        // Typed arrays and strings of ordinary sizes, as a show might use them.
        shows["ordinary"] = "function() { var t = new Uint8Array(1 << 20).fill(2); var f = Float64Array.from([0.5, 1.5]);"
            + " return [t.reduce(function(a, b) { return a + b; }, 0), f[1], 'ab'.repeat(1000).length,"
            + " 'x'.padStart(5, '-'), ['a', 'b'].join('+'), new Array(3).fill(0).length].join(' '); }"
        let members = shows.keys.sorted().map { ($0, JSONValue.string(shows[$0] ?? "")) }
        return JSONWriter.string(.object(JSONObject([("shows", .object(JSONObject(members)))])))
    }()

    @Test func parallelMemoryBombsKeepThePeakBounded() throws {
        let dir = try TempDirectory(prefix: "js-memory")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/js").status == 201)
        #expect(try settee.adminRequest("PUT", "/js/_design/d", json: Self.designDocument).status == 201)
        #expect(try settee.adminRequest("GET", "/js/_design/d/_show/ok").text == "ok")
        #expect(try settee.adminRequest("GET", "/js/_design/d/_show/ordinary").text == "2097152 1.5 2000 ----x a+b 3")
        #expect(Self.resetPeak(settee.pid))
        let baseline = Self.statusFigure(settee.pid, "VmRSS")
        #expect(baseline > 0)

        // Every bomb twice, all at once, from threads of the test.
        let answers = Mutex<[(String, TestResponse?)]>([])
        let group = DispatchGroup()
        for name in Self.bombs.keys.sorted() + Self.bombs.keys.sorted() {
            DispatchQueue.global().async(group: group) {
                let response = try? settee.adminRequest("GET", "/js/_design/d/_show/\(name)")
                answers.withLock { $0.append((name, response)) }
            }
        }
        var answeredMeanwhile = 0
        while group.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if (try? settee.adminRequest("GET", "/_up").status) == 200 { answeredMeanwhile += 1 }
        }
        #expect(answeredMeanwhile > 0, "the server did not answer while the bombs ran")

        for (name, response) in answers.withLock({ $0 }) {
            // CouchDB's shape for a query server that ran out of memory (couch_os_process).
            #expect(response?.status == 500, "\(name): \(response?.status ?? 0) \(response?.text ?? "")")
            let body = response.flatMap { try? JSONReader.parse($0.text) }
            #expect(body?["error"] == "os_process_error", "\(name): \(response?.text ?? "")")
            #expect(body?["reason"]?.stringValue?.contains("memory limit") == true, "\(name): \(response?.text ?? "")")
        }
        // Two threads run JavaScript on this machine: each call may grow by its limit (64 MiB)
        // plus what it allocates between two looks of the watch; far from the gigabytes asked.
        let peak = Self.statusFigure(settee.pid, "VmHWM")
        #expect(peak - baseline < 320 << 20, "peak RSS \(peak >> 20) MiB, \(baseline >> 20) MiB before the bombs")

        #expect(try settee.adminRequest("GET", "/").status == 200)
        #expect(try settee.adminRequest("GET", "/js/_design/d/_show/ok").text == "ok")
        #expect(try settee.adminRequest("GET", "/js/_design/d/_show/ordinary").text == "2097152 1.5 2000 ----x a+b 3")
        // What the calls left is handed back: RSS comes back near where it was.
        let deadline = ContinuousClock.now + .seconds(10)
        var resident = Self.statusFigure(settee.pid, "VmRSS")
        while resident > baseline + (128 << 20) && ContinuousClock.now < deadline {
            resident = Self.statusFigure(settee.pid, "VmRSS")
        }
        #expect(resident <= baseline + (128 << 20), "RSS \(resident >> 20) MiB after the calls, \(baseline >> 20) MiB before")
    }
}
