@testable import SetteeServer
import SetteeStore
import Testing

/// `_revs_diff`'s answer, written as bytes (`RevsDiffHandlers.answer`).
@Suite struct RevsDiffHandlersTests {
    private func rev(_ text: String) throws -> RevisionID { try #require(RevisionID(text)) }

    @Test func answerIsCompactJSONInTheDiffsOrder() throws {
        let diffs = [
            RevisionsDiff(id: "b", missing: [try rev("2-x"), try rev("3-y")], possibleAncestors: [try rev("1-a")]),
            RevisionsDiff(id: "a\"q", missing: [try rev("1-z")], possibleAncestors: []),
        ]
        let text = String(decoding: RevsDiffHandlers.answer(diffs), as: UTF8.self)
        #expect(text == #"{"b":{"missing":["2-x","3-y"],"possible_ancestors":["1-a"]},"a\"q":{"missing":["1-z"]}}"# + "\n")
    }

    @Test func anIdAskedTwiceKeepsItsFirstPlaceAndItsLastEntry() throws {
        // As setting a JSONObject member twice did: the place of the first, the value of the last.
        let diffs = [
            RevisionsDiff(id: "a", missing: [try rev("1-x")], possibleAncestors: []),
            RevisionsDiff(id: "b", missing: [try rev("1-y")], possibleAncestors: []),
            RevisionsDiff(id: "a", missing: [try rev("2-z")], possibleAncestors: []),
        ]
        let text = String(decoding: RevsDiffHandlers.answer(diffs), as: UTF8.self)
        #expect(text == #"{"a":{"missing":["2-z"]},"b":{"missing":["1-y"]}}"# + "\n")
    }

    @Test func noDiffsIsAnEmptyObject() {
        #expect(String(decoding: RevsDiffHandlers.answer([]), as: UTF8.self) == "{}\n")
    }
}
