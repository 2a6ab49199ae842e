import Foundation
import SetteeTestSupport
import Testing

/// `DesignDocumentCheck` asks for the JavaScript engine only when a design document has a
/// function to compile: a fresh server writes `_design/_auth` (nothing to compile) into
/// `_users` as it starts, and loading JavaScriptCore for it was a third of the start's CPU
/// and 1.6 MB of RSS on every device of a room that never runs a line of JavaScript.
@Suite struct DesignDocumentCheckTests {
    static func loadsJavaScriptCore(_ pid: Int32) throws -> Bool {
        try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8).contains("libjavascriptcoregtk")
    }

    @Test func aFreshServerLoadsNoJavaScriptEngineUntilADesignDocumentNeedsOne() throws {
        let dir = try TempDirectory(prefix: "ddoc-check")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill() }
        #expect(try settee.adminRequest("GET", "/_users/_design/_auth").status == 200)
        #expect(try settee.adminRequest("PUT", "/plain").status == 201)
        #expect(try settee.adminRequest("PUT", "/plain/_design/static", json: #"{"language":"javascript"}"#).status == 201)
        #expect(try !Self.loadsJavaScriptCore(settee.pid))
        // A view to compile: the engine is loaded now (where the library is installed).
        let view = #"{"views":{"v":{"map":"function(doc){ emit(doc._id, null); }"}}}"#
        #expect(try settee.adminRequest("PUT", "/plain/_design/v", json: view).status == 201)
        let installed = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]
            .contains { FileManager.default.fileExists(atPath: $0 + "/libjavascriptcoregtk-4.1.so.0") }
        #expect(try Self.loadsJavaScriptCore(settee.pid) == installed)
    }
}
