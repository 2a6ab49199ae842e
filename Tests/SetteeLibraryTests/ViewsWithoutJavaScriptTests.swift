import Foundation
import Settee
import Testing

/// Without JavaScriptCore (the small container image) a view query is a typed error
/// saying so, and everything else still works. Whether the engine loads is decided once
/// per process, so the check runs in a child: this test binary again, filtered to the
/// inner test, with `SETTEE_JAVASCRIPT_LIBRARY` naming a library that is not there.
@Suite struct ViewsWithoutJavaScriptTests {
    static let marker = "SETTEE_TEST_EXPECT_NO_JAVASCRIPT"
    static var isChild: Bool { ProcessInfo.processInfo.environment[marker] == "1" }

    @Test(.enabled(if: !isChild)) func aChildWithoutTheEngineGetsTheTypedError() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["SETTEE_JAVASCRIPT_LIBRARY"] = scratch.path + "/missing.so"
        environment[Self.marker] = "1"
        let test = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let (status, text) = try await runCapturing(
            [test, "--testing-library", "swift-testing", "--filter", "ViewsWithoutJavaScriptTests/viewQueriesSayTheEngineIsMissing"],
            environment: environment)
        #expect(status == 0, "\(text)")
        // It ran (not skipped, not filtered away) and passed.
        #expect(text.contains("Test viewQueriesSayTheEngineIsMissing() passed"), "\(text)")
    }

    @Test(.enabled(if: isChild)) func viewQueriesSayTheEngineIsMissing() async throws {
        #expect(!Database.isJavaScriptAvailable)
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            _ = try await notes.save(Note(text: "A", priority: 1), id: "a")
            // A design document is still saved (it replicates, and a peer may run it).
            let rev = try await notes.saveView("byPriority", design: "notes",
                                               map: "function (doc) { emit(doc.priority, null); }")
            #expect(rev.hasPrefix("1-"))
            do {
                _ = try await notes.queryView("byPriority", design: "notes", key: Int.self, value: ViewKey.self)
                Issue.record("a view answered without JavaScriptCore")
            } catch SetteeError.javaScriptUnavailable(let reason) {
                #expect(reason.contains("JavaScriptCore"))
            }
            #expect(try await notes.document(Note.self, id: "a")?.value.text == "A")
        }
    }
}
