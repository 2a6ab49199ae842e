public import SetteeJSON

/*
 A design document function's source as CouchDB's query server takes it. couchjs
 evaluates the source as a whole script and keeps its completion value
 (util.js compileFunction -> evalcx; QuickJS patched to read a leading anonymous
 `function (...)` statement as an expression, SpiderMonkey by rewrite_fun.js), so
 what clients save works: a trailing `;` (or several), comments and whitespace on
 either side, a parenthesised function, an arrow function, a named function.

 Settee does the same with one `eval` of `0,` and the source: the comma puts the
 leading `function` in expression position, the rest of the script (`;`, comments)
 leaves the completion value alone. It runs where `require` is in scope, so the
 function can use it as before.
*/

/// Design document function sources, turned into what the engine evaluates.
public enum FunctionSource {
    /// A JavaScript expression whose value is the function `source` defines (or what else
    /// it evaluates to: the caller checks for a function).
    public static func expression(_ source: String) -> String {
        "eval(" + JSONWriter.string(.string("0," + source + "\n")) + ")"
    }

    /// Whether `source` is empty: CouchDB answers 404 `not_found` "missing function"
    /// (util.js compileFunction: `if (!source)`).
    public static func isMissing(_ source: String) -> Bool { source.isEmpty }
}
