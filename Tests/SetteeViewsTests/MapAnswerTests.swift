import SetteeJSON
import SetteeViews
import Testing

/// A design document's map functions called together on each document (`__mapDocs`),
/// and their answer read row by row (`MapAnswer`).
@Suite struct MapAnswerTests {
    static func texts(_ documents: [String]) -> [[UInt8]] { documents.map { Array($0.utf8) } }

    /// What the whole answer parsed as a value tree gives for slot `slot`: each row's key,
    /// and the row written by `JSONWriter` (how rows were stored before `MapAnswer`).
    static func parsedRows(_ answer: MapAnswer, _ slot: Int) throws -> [MapAnswer.Row]? {
        guard case .array(let slots) = try JSONReader.parse(answer.text), let rows = slots[slot].arrayValue else { return nil }
        return rows.enumerated().compactMap { place, row in
            guard case .array(let pair) = row, pair.count == 2 else { return nil }
            return MapAnswer.Row(key: pair[0], pair: JSONWriter.serialize(row), place: place)
        }
    }

    /// One call, every function on every document, slots document by document.
    @Test func everyFunctionMapsEveryDocumentInOneCall() throws {
        let engine = try JavaScriptEngine()
        let byN = try engine.compile("function(doc) { emit(doc.n, doc.age); }")
        let byType = try engine.compile("function(doc) { if (doc.type) emit(doc.type, doc.age); }")
        let answer = try engine.map([byN, byType], documents: Self.texts([#"{"n":1,"type":"a","age":7}"#, #"{"n":2}"#]))
        let slots = try answer.slots()
        #expect(slots.count == 4)
        #expect(slots.map { $0?.map(\.key) } == [[1], ["a"], [2], []])
        #expect(slots.map { $0?.map { String(decoding: $0.pair, as: UTF8.self) } }
                == [["[1,7]"], [#"["a",7]"#], ["[2,null]"], []])
    }

    /// CouchDB's COUCHDB-925 test: a map function that changes its document changes nothing
    /// another function of the design document sees (couchjs deep-freezes the document).
    @Test func aFunctionThatChangesTheDocumentChangesNothingTheNextSees() throws {
        let engine = try JavaScriptEngine()
        let changer = try engine.compile("""
            function(doc) { doc.values = [666]; doc.tokens.c = 3; emit(1, 1); doc.tags.push("qwerty"); }
            """)
        let reader = try engine.compile("function(doc) { emit(doc.values, [doc.tags, doc.tokens]); }")
        let document = #"{"values":[1],"tags":["a"],"tokens":{"a":1}}"#
        let slots = try engine.map([changer, reader], documents: Self.texts([document])).slots()
        #expect(slots[0] == nil)  // `push` on a frozen array throws: the function emits nothing for it
        #expect(slots[1]?.map(\.key) == [[1]])
        #expect(slots[1]?.map { String(decoding: $0.pair, as: UTF8.self) } == [#"[[1],[["a"],{"a":1}]]"#])
    }

    /// CouchDB's view_sandboxing test "attempting to change the document has no effect":
    /// the document a function emits is the one it was given, even with one function.
    @Test func aDocumentEmittedAfterAChangeIsUnchanged() throws {
        let engine = try JavaScriptEngine()
        let map = try engine.compile("function(doc) { doc.integer = 2; emit(null, doc); }")
        #expect(try engine.map(map, documents: [#"{"integer":1}"#])[0] == [[nil, ["integer": 1]]])
    }

    /// A function that throws loses its own rows for that document only.
    @Test func aThrowingFunctionLosesOnlyItsOwnSlot() throws {
        let engine = try JavaScriptEngine()
        let throwing = try engine.compile("function(doc) { emit(doc.a.b, 1); }")
        let fine = try engine.compile("function(doc) { emit(doc._id, null); }")
        let slots = try engine.map([throwing, fine], documents: Self.texts([#"{"_id":"x"}"#, #"{"_id":"y","a":{"b":2}}"#]))
            .slots()
        #expect(slots.map { $0?.map(\.key) } == [nil, ["x"], [2], ["y"]])
    }

    /// Each row is stored exactly as when the whole answer was parsed and each row written
    /// again: compact rows as their text, rows with `\u` escapes parsed and written.
    @Test func rowsAreStoredAsTheParsedAnswerWroteThem() throws {
        let engine = try JavaScriptEngine()
        let map = try engine.compile(#"""
            function(doc) {
              emit(doc.n, null); emit(-0, 0.1); emit(1e21, 123456789012345680000); emit(true, false);
              emit("tab\there \"q\" \\ é 😀", "\u0001\u001f\u007f\u2028");
              emit([1, "a", {"b": [null, {}]}], {"k": "v/w", "": []}); emit({"z": 1, "a": 2}, "\u00e9");
              emit(undefined, undefined); emit(["nested", "\n"], doc);
            }
            """#)
        let answer = try engine.map([map], documents: Self.texts([#"{"_id":"d","n":-1.5e-7,"s":"\u0000"}"#]))
        let rows = try #require(try answer.slots()[0])
        let expected = try #require(try Self.parsedRows(answer, 0))
        #expect(rows.count == 9)
        #expect(rows.map(\.key) == expected.map(\.key))
        #expect(rows.map(\.pair) == expected.map(\.pair))
        #expect(rows.map(\.place) == Array(0..<9))
    }

    /// Rows nested past the reader's limit fail the call, as the whole answer's parse did,
    /// and rows just within it do not.
    @Test func tooDeepAnAnswerFailsAsItsParseDid() throws {
        let engine = try JavaScriptEngine()
        let map = try engine.compile("""
            function(doc) { var v = 1; for (var i = 0; i < doc.depth; i++) v = [v]; emit(doc.key ? v : 1, v); }
            """)
        for depth in 505...511 {
            for key in [false, true] {
                let answer = try engine.map([map], documents: Self.texts([#"{"depth":\#(depth),"key":\#(key)}"#]))
                let parses = (try? JSONReader.parse(answer.text)) != nil
                #expect(((try? answer.slots()) != nil) == parses, "depth \(depth), in the key: \(key)")
            }
        }
    }

    /// Rows that are not `[key, value]` pairs (pushed by a function itself) are left out,
    /// and the places of the rest count them, as when the answer was parsed whole.
    @Test func rowsThatAreNotPairsAreLeftOutButCounted() throws {
        let engine = try JavaScriptEngine()
        let map = try engine.compile("function(doc) { __rows.push(5); emit(1, 2); __rows.push([1, 2, 3]); emit(3, 4); }")
        let rows = try #require(try engine.map([map], documents: Self.texts(["{}"])).slots()[0])
        #expect(rows.map(\.key) == [1, 3])
        #expect(rows.map(\.place) == [1, 3])
    }

    /// A lone surrogate (JSON.stringify writes it escaped) fails the call, as the whole
    /// answer's parse did: the reader refuses it.
    @Test func aLoneSurrogateFailsAsItsParseDid() throws {
        let engine = try JavaScriptEngine()
        let map = try engine.compile(#"function(doc) { emit(1, "x\ud800y"); }"#)
        let answer = try engine.map([map], documents: Self.texts(["{}"]))
        #expect(throws: JSONError.self) { try JSONReader.parse(answer.text) }
        #expect(throws: JavaScriptError.self) { try answer.slots() }
    }
}
