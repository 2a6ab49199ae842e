import SetteeJSON
@testable import SetteeServer
import Testing

/// `ConflictPolicy.declared`: what a design document's `conflicts` member may say.
@Suite struct ConflictPolicyTests {
    private func declared(_ text: String) throws -> ConflictPolicy? {
        try ConflictPolicy.declared(in: try JSONReader.parse(text))
    }

    @Test func builtInsAndJavaScript() throws {
        #expect(try declared(#"{"views":{}}"#) == nil)
        #expect(try declared(#"{"conflicts":{"policy":"_merge"}}"#) == .merge(key: nil, order: nil))
        #expect(try declared(#"{"conflicts":{"policy":"_merge","key":"id","order":"at"}}"#) == .merge(key: "id", order: "at"))
        #expect(try declared(#"{"conflicts":{"policy":"_max","field":"updated"}}"#) == .max(field: "updated"))
        #expect(try declared(#"{"conflicts":{"policy":"_winner"}}"#) == .winner)
        #expect(try declared(#"{"conflicts":{"policy":"function(l, w) { return w; }"}}"#)
                == .javaScript(source: "function(l, w) { return w; }"))
    }

    @Test(arguments: [#"{"conflicts":true}"#, #"{"conflicts":{}}"#, #"{"conflicts":{"policy":""}}"#,
                      #"{"conflicts":{"policy":"_sum"}}"#, #"{"conflicts":{"policy":"_max"}}"#,
                      #"{"conflicts":{"policy":"_max","field":3}}"#, #"{"conflicts":{"policy":"_merge","order":"at"}}"#,
                      #"{"conflicts":{"policy":"_merge","kee":"id"}}"#, #"{"conflicts":{"policy":"_winner","field":"x"}}"#,
                      #"{"conflicts":{"policy":"function(){}","key":"id"}}"#])
    func malformedDeclarationsAreRefused(_ text: String) throws {
        #expect(throws: ConflictPolicy.Malformed.self) { try declared(text) }
    }
}
