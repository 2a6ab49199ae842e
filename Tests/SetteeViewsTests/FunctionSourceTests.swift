import SetteeJSON
@testable import SetteeViews
import Testing

/// Sources as couchjs takes them (CouchDB 3.4.3 with QuickJS).
@Suite struct FunctionSourceTests {
    @Test func severalAnonymousFunctionsTheLastWins() throws {
        let engine = try JavaScriptEngine()
        let map = try engine.compile("function(doc) { emit('first', 1); } function(doc) { emit('second', 2); }")
        #expect(try engine.map(map, documents: [#"{"_id":"a"}"#])[0] == [["second", 2]])
        let three = try engine.compile("function(d) { emit(1, 1); }\n// a comment\nfunction(d) { emit(2, 2); };\nfunction(d) { emit(3, 3); }")
        #expect(try engine.map(three, documents: [#"{"_id":"a"}"#])[0] == [[3, 3]])
    }

    @Test func onlyTopLevelFunctionsAfterABraceCount() {
        #expect(FunctionSource.laterTopLevelFunctions("function(doc) { var f = function() {}; }").isEmpty)
        #expect(FunctionSource.laterTopLevelFunctions("function(doc) { emit('} function', 1); }").isEmpty)
        #expect(FunctionSource.laterTopLevelFunctions("function(doc) {} /* } function */").isEmpty)
        #expect(FunctionSource.laterTopLevelFunctions("function(a) {} functional").isEmpty)
        #expect(FunctionSource.laterTopLevelFunctions("function(a) {} function(b) {}").count == 1)
    }

    @Test func aSingleFunctionIsEvaluatedAsBefore() {
        let source = "function(doc) { emit(doc._id, null); };"
        #expect(FunctionSource.expression(source) == "eval(" + JSONWriter.string(.string("0," + source + "\n")) + ")")
    }

    @Test func aStringThatLooksLikeTwoFunctionsStillRunsWhole() throws {
        let engine = try JavaScriptEngine()
        // A regular expression with a brace fools the scanner; the source as given parses and wins.
        let map = try engine.compile("function(doc) { if (/}/.test(doc.s)) emit(1, 1); } ")
        #expect(try engine.map(map, documents: [#"{"s":"}"}"#])[0] == [[1, 1]])
    }
}
