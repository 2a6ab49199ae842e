import SetteeJSON
@testable import SetteeReplicator
import Testing

/// `_revs_diff` written without a `JSONObject` and read without a value tree
/// (`RevsDiffAnswer`), exactly as the request was written and the answer read before.
@Suite struct RevsDiffAnswerTests {
    /// The answer as the replicator read it before: parsed whole, each member in turn.
    private func parsedWhole(_ text: String) throws -> [String: MissingRevisions] {
        var missing: [String: MissingRevisions] = [:]
        for member in try JSONReader.parse(text).objectValue ?? JSONObject() {
            missing[member.key] = MissingRevisions(
                missing: member.value["missing"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                possibleAncestors: member.value["possible_ancestors"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        return missing
    }

    private func scan(_ text: String) -> [String: MissingRevisions]? {
        Array(text.utf8).withUnsafeBufferPointer { RevsDiffAnswer.scan($0) }
    }

    @Test func theBodyIsWhatTheWriterWroteForTheSameObject() {
        let revisions = ["a": ["1-x", "2-y"], "q\"\\\u{01}é": ["1-z"], "none": []]
        let object = JSONObject(revisions.map { ($0.key, .array($0.value.map { .string($0) })) })
        #expect(RevsDiffAnswer.body(revisions) == JSONWriter.serialize(.object(object)))
        #expect(RevsDiffAnswer.body([:]) == Array("{}".utf8))
    }

    /// Apache CouchDB 3.4.3's own answer (the reference server, 2026-11-27), verbatim.
    @Test func couchDB343sAnswerAsItSentIt() throws {
        let text = #"{"n\"q":{"missing":["1-x"]},"b":{"missing":["1-z"]},"é":{"missing":["1-y"]},"a":{"missing":["2-b1","3-c2"],"possible_ancestors":["1-7a7e4b29f3af401e69b6f86e4c26b727"]}}"#
        #expect(scan(text) == [
            "a": MissingRevisions(missing: ["2-b1", "3-c2"], possibleAncestors: ["1-7a7e4b29f3af401e69b6f86e4c26b727"]),
            "n\"q": MissingRevisions(missing: ["1-x"], possibleAncestors: []),
            "é": MissingRevisions(missing: ["1-y"], possibleAncestors: []),
            "b": MissingRevisions(missing: ["1-z"], possibleAncestors: []),
        ])
        #expect(scan(text) == (try parsedWhole(text)))
    }

    @Test(arguments: [
        #"{}"#, #" { } "#, #"{"a":{}}"#, #"{"a":{"missing":[]}}"#,
        #"{"a":{"missing":["1-x"]},"a":{"missing":["2-y"]}}"#,            // a repeated id: the last counts
        #"{"a":{"missing":["1-x",5,null,"2-y"],"other":{"missing":["no"]}}}"#,  // non-strings dropped
        #"{"\u0061\/":{"missing":["1-\u0078"]}}"#,                              // escaped ids and revs decoded
    ])
    func readsAsTheWholeParseReads(_ text: String) throws {
        #expect(scan(text) != nil, "\(text)")
        #expect(scan(text) == (try parsedWhole(text)), "\(text)")
    }

    /// Anything else is left to the whole parse (which reads it, or reports it malformed).
    @Test(arguments: [
        #"[]"#, #"{"a":[]}"#, #"{"a":null}"#, #"{"a":{"missing":{}}}"#, #"{"a":{"missing":"1-x"}}"#,
        #"{"a":{"\u006dissing":["1-x"]}}"#, #"{"a":{"missing":["1-x"]}"#, #"{"a":{"missing":["1-x"]}} x"#,
        #"{"a":{"missing":["1-\ud800"]}}"#, "",
        #"{"a":{"missing":["1-x"],"missing":["2-y"]}}"#,                        // repeated: the whole parse keeps the last
        #"{"a":{"possible_ancestors":["1-p"],"possible_ancestors":[]}}"#,
    ])
    func unusualAnswersAreLeftToTheWholeParse(_ text: String) {
        #expect(scan(text) == nil)
    }
}
