import SetteeJSON
import Testing

/// Each expected form is what Apache CouchDB 3.4.3's `_explain` showed for the selector
/// (mango_selector:normalize/1); conformance/test_explain.py runs the same against a server.
@Suite struct SelectorNormalizerTests {
    private func normalized(_ text: String) throws -> String {
        JSONWriter.string(SelectorNormalizer.normalize(try JSONReader.parse(text)))
    }

    @Test func bareValuesAreEquality() throws {
        #expect(try normalized(#"{"a":1}"#) == #"{"a":{"$eq":1}}"#)
        #expect(try normalized(#"{"a":[1,2]}"#) == #"{"a":{"$eq":[1,2]}}"#)
        #expect(try normalized(#"{"a":{}}"#) == #"{"a":{"$eq":{}}}"#)
        #expect(try normalized("{}") == "{}")
    }

    @Test func severalMembersAreAnExplicitAnd() throws {
        #expect(try normalized(#"{"a":1,"b":"x"}"#) == #"{"$and":[{"a":{"$eq":1}},{"b":{"$eq":"x"}}]}"#)
        #expect(try normalized(#"{"a":{"$gt":0,"$lt":5}}"#) == #"{"$and":[{"a":{"$gt":0}},{"a":{"$lt":5}}]}"#)
    }

    @Test func nestedFieldsAreDottedPaths() throws {
        #expect(try normalized(#"{"b":{"c":{"$gt":1}}}"#) == #"{"b.c":{"$gt":1}}"#)
        #expect(try normalized(#"{"a":{"$elemMatch":{"$eq":1}}}"#) == #"{"a":{"$elemMatch":{"":{"$eq":1}}}}"#)
    }

    @Test func negationsArePushedDown() throws {
        #expect(try normalized(#"{"$not":{"a":1}}"#) == #"{"a":{"$ne":1}}"#)
        #expect(try normalized(#"{"$nor":[{"a":1},{"a":{"$in":[2]}}]}"#)
            == #"{"$and":[{"a":{"$ne":1}},{"a":{"$nin":[2]}}]}"#)
        #expect(try normalized(#"{"d":{"$not":{"$and":[{"$gt":1},{"$regex":"x"}]}}}"#)
            == #"{"$or":[{"d":{"$lte":1}},{"d":{"$not":{"$regex":"x"}}}]}"#)
        #expect(try normalized(#"{"c":{"$not":{"$exists":true}}}"#) == #"{"c":{"$exists":false}}"#)
    }
}
