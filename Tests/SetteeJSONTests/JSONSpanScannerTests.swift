import SetteeJSON
import Testing

@Suite struct JSONSpanScannerTests {
    private func members(_ text: String, at start: Int = 0) -> [JSONMemberSpan]? {
        Array(text.utf8).withUnsafeBufferPointer { JSONSpanScanner.members(ofObjectIn: $0, at: start) }
    }

    private func texts(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        return (members(text) ?? []).map { String(decoding: bytes[$0.range], as: UTF8.self) }
    }

    @Test func membersRunFromKeyToValueEnd() {
        #expect(texts(#" { "a" :1, "b":[1, {"c":"}"}] ,"d":"x\"y"} "#) == [#""a" :1"#, #""b":[1, {"c":"}"}]"#, #""d":"x\"y""#])
        #expect(texts("{}") == [])
        #expect(members(#"{"a":1}"#)?.first?.valueStart == 5)
    }

    @Test func valueEndSaysWhereAValueEndsAndRefusesNestingPastTheLimit() {
        func end(_ text: String, at start: Int = 0, maxDepth: Int = .max) -> (Int, Bool)? {
            Array(text.utf8).withUnsafeBufferPointer { JSONSpanScanner.valueEnd(in: $0, at: start, maxDepth: maxDepth) }
                .map { ($0.end, $0.isCompact) }
        }
        #expect(end(#"[1,"a\"b"],"#).map { $0.0 } == 10)
        #expect(end(#"[1,"a\"b"],"#).map { $0.1 } == true)
        #expect(end("[1, 2]").map { $0.1 } == false)
        #expect(end("x,-12.5e3]", at: 2).map { $0.0 } == 9)
        #expect(end(#""open"#) == nil)
        #expect(end("[[[1]]]", maxDepth: 3) != nil)
        #expect(end("[[[1]]]", maxDepth: 2) == nil)
        #expect(end("7", maxDepth: 0).map { $0.0 } == 1)
    }

    @Test func compactMeansWhatJSONWriterWrites() {
        let cases: [(String, Bool)] = [
            (#"{"a":1}"#, true), (#"{"a" :1}"#, false), (#"{"a": 1}"#, false), (#"{"a":[1,2]}"#, true),
            (#"{"a":[1 ,2]}"#, false), (#"{"a":{"b":null}}"#, true), (#"{"a":{ "b":null}}"#, false),
            (#"{"a":"\n\r\t\b\f\"\\"}"#, true), (#"{"a":"\/"}"#, false), (#"{"a":"\u00e9"}"#, false),
            (#"{"a":"\u001f"}"#, false), (#"{"\u0061":1}"#, false), (#"{"a":"é 😀"}"#, true),
            (#"{"a":-1.5e+3}"#, true), (#"{"a":"x y"}"#, true), (#"{"a":true,"b":false}"#, true),
        ]
        for (text, isCompact) in cases {
            #expect(members(text)?.first?.isCompact == isCompact, "\(text)")
        }
        // White space between members is not part of either.
        #expect(members(#"{"a":1 , "b":2}"#)?.map(\.isCompact) == [true, true])
    }

    @Test func arrayElementsThatAreObjectsGetTheirMembers() {
        let text = #"[{"a":1}, 2 ,{},"s",[{"x":1}]]"#
        let elements = Array(text.utf8).withUnsafeBufferPointer { JSONSpanScanner.elementMembers(ofArrayIn: $0, at: 0) }
        #expect(elements?.count == 5)
        #expect(elements?.map { $0?.count } == [1, nil, 0, nil, nil])
    }

    @Test func truncatedOrForeignTextGivesNilNeverACrash() {
        for text in [#"{"a":"#, #"{"a":"x"#, #"{"a":tru"#, #"{"a":[1,2"#, #"{"a"1}"#, "[1]", "", #"{"a":1"#, #"{"a":"\"#] {
            #expect(members(text) == nil, "\(text)")
        }
    }

    /// A view row's stored `[key, value]`: the two elements' bytes, or nil for anything
    /// that is not a compact pair (the caller parses those).
    @Test func compactPairsSplitIntoTheirTwoElements() {
        func pair(_ text: String) -> [String]? {
            let bytes = Array(text.utf8)
            guard let (a, b) = bytes.withUnsafeBufferPointer({ JSONSpanScanner.compactPair(in: $0) }) else { return nil }
            return [String(decoding: bytes[a], as: UTF8.self), String(decoding: bytes[b], as: UTF8.self)]
        }
        #expect(pair("[1,null]") == ["1", "null"])
        #expect(pair(#"[["a,]",{"b":[1,2]}],"x\"],y"]"#) == [#"["a,]",{"b":[1,2]}]"#, #""x\"],y""#])
        #expect(pair("[-1.5e+3,true]") == ["-1.5e+3", "true"])
        for other in ["", "[]", "[1]", "[1,2,3]", "[1, 2]", "{\"a\":1}", "[1,2] ", #"[1,"\u00e9"]"#, "[1,2"] {
            #expect(pair(other) == nil, "\(other)")
        }
    }

    /// One pass: the root's members, and the elements of the first member written exactly
    /// `"docs"` whose value is an array, as `elementMembers` finds them.
    @Test func expandingAMemberGivesItsElementsInTheSamePass() throws {
        func scan(_ text: String) -> (members: [String], elements: [Int?]?)? {
            let bytes = Array(text.utf8)
            guard let found = bytes.withUnsafeBufferPointer({ JSONSpanScanner.members(ofObjectIn: $0, expanding: "docs") })
            else { return nil }
            return (found.members.map { String(decoding: bytes[$0.range], as: UTF8.self) }, found.elements?.map { $0?.count })
        }
        let plain = try #require(scan(#"{"w":1, "docs" : [{"a":1,"b":2}, 3 ,{}] ,"new_edits":false}"#))
        #expect(plain.members == [#""w":1"#, #""docs" : [{"a":1,"b":2}, 3 ,{}]"#, #""new_edits":false"#])
        #expect(plain.elements == [2, nil, 0])
        #expect(scan(#"{"docs":[]}"#)?.elements == [])
        #expect(scan(#"{"docs":{},"docs":[{}]}"#)?.elements == [0])  // the first that is an array
        #expect(scan(#"{"docs":[{"a":1}],"docs":[]}"#)?.elements == [1])
        let escaped = try #require(scan(#"{"\u0064ocs":[{}]}"#))
        #expect(escaped.members.count == 1 && escaped.elements == nil)
        #expect(scan(#"{"x":[1]}"#)?.elements == nil)
        for broken in [#"{"docs":[{"a":1}"#, #"{"docs":[1,"#, "[]", #"{"docs":[{"a"}]}"#] {
            #expect(scan(broken) == nil, "\(broken)")
        }
    }
}
