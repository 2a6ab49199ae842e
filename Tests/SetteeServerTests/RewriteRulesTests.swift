import SetteeJSON
import Testing
@testable import SetteeServer

/// chttpd_rewrite's binding, in CouchDB 3.4.3's order.
@Suite struct RewriteRulesTests {
    static func rules(_ json: String) throws -> RewriteRules {
        try RewriteRules(try #require(try JSONReader.parse(json).arrayValue))
    }

    @Test func bindingsQueriesAndTheirOrder() throws {
        let rules = try Self.rules(#"[{"from": "/show/:id", "to": "_show/s/:id", "query": {"x": "1", "k": ":id"}}]"#)
        let out = try #require(rules.rewrite(method: "GET", path: ["show", "a"], query: [("y", "2")]))
        #expect(out.path == ["_show", "s", "a"])
        #expect(out.query.map { "\($0.name)=\($0.value)" } == ["x=1", "k=a", "y=2", "id=a"])
    }

    @Test func starTakesTheRestAndMethodsFilter() throws {
        let rules = try Self.rules(#"[{"from": "/m", "to": "../../a", "method": "GET"}, {"from": "/p/*", "to": "../../*"}]"#)
        #expect(rules.rewrite(method: "GET", path: ["p", "x", "y"], query: [])?.path == ["..", "..", "x", "y"])
        #expect(rules.rewrite(method: "GET", path: ["m"], query: [])?.path == ["..", "..", "a"])
        #expect(rules.rewrite(method: "PUT", path: ["m"], query: []) == nil)
        #expect(rules.rewrite(method: "GET", path: ["nothing"], query: []) == nil)
    }

    @Test func jsonOptionsAndFormats() throws {
        let rules = try Self.rules(#"[{"from": "/v/:n", "to": "_view/v", "query": {"key": ":n", "startkey": [":n", "z"]}, "formats": {"n": "int"}}]"#)
        let out = try #require(rules.rewrite(method: "GET", path: ["v", "2"], query: []))
        #expect(out.query.map { "\($0.name)=\($0.value)" } == ["key=2", #"startkey=[2,"z"]"#, "n=2"])
    }

    @Test func climbingAboveTheDatabaseIsRefused() throws {
        #expect(throws: CouchError.self) { try Self.rules(#"[{"from": "/x", "to": "../../../"}]"#) }
        #expect(throws: CouchError.self) { try Self.rules(#"[{"from": "/x"}]"#) }
    }
}
