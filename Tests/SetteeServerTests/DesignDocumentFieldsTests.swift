import SetteeJSON
import Testing
@testable import SetteeServer

/// couch_mrview:validate_ddoc_fields/1's table and messages.
@Suite struct DesignDocumentFieldsTests {
    static func refusal(_ json: String) throws -> String? { DesignDocumentFields.refusal(try JSONReader.parse(json)) }

    @Test func membersOfTheWrongTypeAreNamedByPath() throws {
        #expect(try Self.refusal(#"{"language": 5}"#) == "`language` field must have string type")
        #expect(try Self.refusal(#"{"shows": {"s": 1}}"#) == "`shows.s` field must have string or object type")
        #expect(try Self.refusal(#"{"rewrites": {}}"#) == "`rewrites` field must have array or string type")
        #expect(try Self.refusal(#"{"views": {"v": {"map": 5}}}"#) == "`views.v.map` field must have string type")
        #expect(try Self.refusal(#"{"language": "query", "views": {"v": {"map": "x"}}}"#)
            == "`views.v.map` field must have object type")
        #expect(try Self.refusal(#"{"views": {"v": {"reduce": "_count"}}}"#) == "View `v` must contain map function")
    }

    @Test func wellTypedDocumentsPass() throws {
        #expect(try Self.refusal(#"{"views": {"lib": {"x": "y"}, "v": {"map": "f", "reduce": "_sum"}}, "shows": {"s": {"a": 1}}}"#) == nil)
        #expect(try Self.refusal(#"{"options": {"local_seq": true}, "rewrites": "function(req) {}"}"#) == nil)
    }
}
