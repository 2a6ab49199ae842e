import SetteeJSON
@testable import SetteeServer
import Testing

/// `ConflictMerge`: the built-in policies' exact semantics on leaves in canonical order
/// (the winner first).
@Suite struct ConflictMergeTests {
    private func json(_ text: String) throws -> JSONValue { try JSONReader.parse(text) }

    private func merge(_ leaves: [String], key: String? = nil, order: String? = nil) throws -> String {
        JSONWriter.string(ConflictMerge.merge(try leaves.map(json), key: key, order: order))
    }

    @Test func objectsAreUnitedMemberByMemberInOrderOfFirstAppearance() throws {
        #expect(try merge([#"{"b":1,"o":{"x":1}}"#, #"{"a":2,"o":{"y":2},"b":3}"#])
                == #"{"b":1,"o":{"x":1,"y":2},"a":2}"#)
    }

    @Test func scalarClashesAndMixedTypesTakeTheWinnersValue() throws {
        #expect(try merge([#"{"t":"mine","n":1}"#, #"{"t":"theirs","n":{"deep":true}}"#]) == #"{"t":"mine","n":1}"#)
        // A member only a loser has is kept from it.
        #expect(try merge([#"{"t":"mine"}"#, #"{"u":"theirs"}"#, #"{"u":"third"}"#]) == #"{"t":"mine","u":"theirs"}"#)
    }

    @Test func arraysOfObjectsAreMergedByKeyAndOrderedByTheOrderField() throws {
        let winner = #"{"e":[{"id":"a","at":1,"v":"A"},{"id":"c","at":5}]}"#
        let loser = #"{"e":[{"id":"a","at":1,"w":"loser"},{"id":"b","at":3}]}"#
        #expect(try merge([winner, loser], key: "id", order: "at")
                == #"{"e":[{"id":"a","at":1,"v":"A","w":"loser"},{"id":"b","at":3},{"id":"c","at":5}]}"#)
        // Without `order`: first appearance (the winner's elements first).
        #expect(try merge([winner, loser], key: "id")
                == #"{"e":[{"id":"a","at":1,"v":"A","w":"loser"},{"id":"c","at":5},{"id":"b","at":3}]}"#)
        // Ties and missing order fields: missing first, then first appearance.
        #expect(try merge([#"{"e":[{"id":1,"at":2},{"id":2,"at":2}]}"#, #"{"e":[{"id":3}]}"#], key: "id", order: "at")
                == #"{"e":[{"id":3},{"id":1,"at":2},{"id":2,"at":2}]}"#)
    }

    @Test func arraysThatAreNotKeyedSetsAreTheWinnersValue() throws {
        #expect(try merge([#"{"tags":["a"]}"#, #"{"tags":["b"]}"#], key: "id") == #"{"tags":["a"]}"#)
        #expect(try merge([#"{"e":[{"id":"a"}]}"#, #"{"e":[{"name":"x"}]}"#], key: "id") == #"{"e":[{"id":"a"}]}"#)
        #expect(try merge([#"{"e":[{"id":"a"}]}"#, #"{"e":[{"id":"b"}]}"#]) == #"{"e":[{"id":"a"}]}"#)
    }

    @Test func maxKeepsTheGreatestFieldInRawCollationTiesToTheEarlierLeaf() throws {
        let leaves = try [#"{"at":"2026-01-02"}"#, #"{"at":"2026-03-01"}"#, #"{"at":"2026-03-01","x":1}"#, "{}"].map(json)
        #expect(ConflictMerge.maxLeaf(leaves, field: "at") == 1)
        #expect(ConflictMerge.maxLeaf(try ["{}", #"{"at":0}"#].map(json), field: "at") == 1)
        #expect(ConflictMerge.maxLeaf(try ["{}", "{}"].map(json), field: "at") == 0)
        // Raw collation: numbers before strings.
        #expect(ConflictMerge.maxLeaf(try [#"{"at":"1"}"#, #"{"at":99}"#].map(json), field: "at") == 0)
    }
}
