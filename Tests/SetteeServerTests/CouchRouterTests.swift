@testable import SetteeServer
import Testing

/// `CouchRouter.loggable`: what a user name or request id becomes in the access log.
@Suite struct CouchRouterTests {
    @Test func printableASCIIIsKeptUpToSixtyFourCharacters() {
        #expect(CouchRouter.loggable("admin") == "admin")
        #expect(CouchRouter.loggable(String(repeating: "a", count: 64)) == String(repeating: "a", count: 64))
        #expect(CouchRouter.loggable(String(repeating: "a", count: 70)) == String(repeating: "a", count: 64))
    }

    @Test func anythingElseBecomesAQuestionMark() {
        #expect(CouchRouter.loggable("a b\nc") == "a?b?c")
        #expect(CouchRouter.loggable("é") == "?")
    }
}
