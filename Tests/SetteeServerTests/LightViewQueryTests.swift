@testable import SetteeServer
import Testing

/// Which view queries go on on the event loop's thread, and which move to the pool.
@Suite struct LightViewQueryTests {
    func query(_ items: [(String, String)]) throws -> ViewQuery {
        try ViewQuery(QueryOptions(items: items.map { (name: $0.0, value: $0.1) }), body: nil)
    }

    @Test(arguments: [[("key", "1")], [("key", "\"a\""), ("limit", "10")], [("startkey", "1"), ("endkey", "9")],
                      [("key", "1"), ("descending", "true"), ("skip", "3")],
                      [("key", "1"), ("update_seq", "true")], [("key", "1"), ("stale", "ok")], [("key", "1"), ("reduce", "false")],
                      // `keys` of one key is `key` (ViewQuery+KeyBounds).
                      [("keys", "[1]")]])
    func mapReadsOfACompiledViewStay(items: [(String, String)]) throws {
        #expect(LightViewQuery.staysOnLoop(try query(items), viewHasReduce: false, isCompiled: true))
    }

    @Test func aReducedViewStaysOnlyWithReduceFalse() throws {
        #expect(!LightViewQuery.staysOnLoop(try query([("key", "1")]), viewHasReduce: true, isCompiled: true))
        #expect(!LightViewQuery.staysOnLoop(try query([("group", "true")]), viewHasReduce: true, isCompiled: true))
        #expect(LightViewQuery.staysOnLoop(try query([("key", "1"), ("reduce", "false")]), viewHasReduce: true, isCompiled: true))
    }

    @Test(arguments: [[("key", "1"), ("include_docs", "true")], [("keys", "[1,2]")], [("keys", "[]")],
                      [("key", "1"), ("sorted", "false")]])
    func documentsKeysAndUnsortedReadsMove(items: [(String, String)]) throws {
        #expect(!LightViewQuery.staysOnLoop(try query(items), viewHasReduce: false, isCompiled: true))
    }

    /// A function not compiled yet is a call into JavaScript.
    @Test func aViewNotCompiledMoves() throws {
        #expect(!LightViewQuery.staysOnLoop(try query([("key", "1")]), viewHasReduce: false, isCompiled: false))
    }

    @Test func theLoopReadsAtMostLoopRows() {
        #expect(LightViewQuery.firstPageLimit(16) == 16)
        #expect(LightViewQuery.firstPageLimit(1_000) == LightViewQuery.loopRows)
    }

    /// A full first page may have more rows after it, unless the query's `limit` is reached.
    @Test func morePagesOnlyAfterAFullPageShortOfTheLimit() throws {
        let all = try query([("key", "1")])
        #expect(!LightViewQuery.mayNeedMorePages(count: 100, limit: 256, all))
        #expect(LightViewQuery.mayNeedMorePages(count: 256, limit: 256, all))
        let ten = try query([("key", "1"), ("limit", "10")])
        #expect(!LightViewQuery.mayNeedMorePages(count: 16, limit: 16, ten))
        let skipped = try query([("key", "1"), ("limit", "10"), ("skip", "10")])
        #expect(LightViewQuery.mayNeedMorePages(count: 16, limit: 16, skipped))
        #expect(!LightViewQuery.mayNeedMorePages(count: 20, limit: 20, skipped))
    }
}
