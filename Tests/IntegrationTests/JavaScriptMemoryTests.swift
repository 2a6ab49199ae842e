import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Memory a design function allocated past its limit goes back to the system (issue #46,
/// item 5): a show filling a 2 GB typed array in one native call runs past every check
/// of the engine's heap, so the engine that ran it is released after the call and the
/// freed pages returned; the server's RSS comes back within a bound.
@Suite(.serialized) struct JavaScriptMemoryTests {
    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
                .flatMap({ Int($0) }) else { return 0 }
        return kilobytes << 10
    }

    @Test func rssComesBackAfterMemoryBombs() throws {
        let dir = try TempDirectory(prefix: "js-memory")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        #expect(try settee.adminRequest("PUT", "/js").status == 201)
        let shows = #"{"shows":{"ok":"function() { return 'ok'; }","# +
            #""buffer":"function() { new Uint8Array(2e9).fill(1); return 'x'; }","# +
            #""rope":"function() { var s = 'xy'.repeat(5e8); return s.slice(0, 2); }","# +
            #""flat":"function() { return 'f' + 'xy'.repeat(2e8).split('').length; }"}}"#
        #expect(try settee.adminRequest("PUT", "/js/_design/d", json: shows).status == 201)
        #expect(try settee.adminRequest("GET", "/js/_design/d/_show/ok").text == "ok")
        let baseline = Self.residentBytes(settee.pid)
        #expect(baseline > 0)
        for show in ["buffer", "buffer", "rope", "flat"] {
            let status = try settee.adminRequest("GET", "/js/_design/d/_show/\(show)").status
            #expect(status == 200 || status == 500, "\(show): \(status)")
        }
        // Polled with a deadline: the pages are returned as each call ends, not later.
        let bound = baseline + (256 << 20)
        let deadline = ContinuousClock.now + .seconds(10)
        var resident = Self.residentBytes(settee.pid)
        while resident > bound && ContinuousClock.now < deadline {
            resident = Self.residentBytes(settee.pid)
        }
        #expect(resident <= bound, "RSS \(resident >> 20) MiB after the calls, \(baseline >> 20) MiB before")
        #expect(try settee.adminRequest("GET", "/js/_design/d/_show/ok").text == "ok")
    }
}
