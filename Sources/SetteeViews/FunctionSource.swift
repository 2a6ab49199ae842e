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
        let whole = evaluation(source)
        let starts = laterTopLevelFunctions(source)
        guard !starts.isEmpty else { return whole }
        // Several anonymous functions one after another: couchjs (QuickJS) reads each as an
        // expression statement, so the last one is the script's value. Each later one gets
        // `;0,` before it; that form is tried only when the source as given does not parse.
        var rewritten = ""
        var from = source.startIndex
        for start in starts {
            rewritten += source[from..<start] + ";0,"
            from = start
        }
        rewritten += source[from...]
        return "(function() { try { return " + whole + "; } catch (e) { if (!(e instanceof SyntaxError)) throw e; return "
            + evaluation(rewritten) + "; } })()"
    }

    private static func evaluation(_ source: String) -> String {
        "eval(" + JSONWriter.string(.string("0," + source + "\n")) + ")"
    }

    /// Where `function` starts a statement at the top level right after a `}` or `;` (a
    /// function following another), outside strings and comments. Regular expression literals are
    /// not recognised: a wrong guess only makes a rewritten form that is tried last.
    static func laterTopLevelFunctions(_ source: String) -> [String.Index] {
        var starts: [String.Index] = []
        var depth = 0
        var last: Character = " "  // the last character that is no space and no comment
        var index = source.startIndex
        while index < source.endIndex {
            let character = source[index]
            let rest = source[index...]
            if rest.hasPrefix("//") {
                index = rest.firstIndex(of: "\n") ?? source.endIndex
                continue
            }
            if rest.hasPrefix("/*") {
                var end = source.index(index, offsetBy: 2)
                while end < source.endIndex, !source[end...].hasPrefix("*/") { end = source.index(after: end) }
                index = end < source.endIndex ? source.index(end, offsetBy: 2) : end
                continue
            }
            if character == "\"" || character == "'" || character == "`" {
                index = endOfString(source, from: index)
                last = character
                continue
            }
            if depth == 0, last == "}" || last == ";", rest.hasPrefix("function"),
               !rest.dropFirst(8).prefix(1).contains(where: { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }) {
                starts.append(index)
            }
            switch character {
            case "{", "(", "[": depth += 1
            case "}", ")", "]": depth = max(0, depth - 1)
            default: break
            }
            if !character.isWhitespace { last = character }
            index = source.index(after: index)
        }
        return starts
    }

    /// The index after the string literal starting at `start` (its closing quote, escapes skipped).
    private static func endOfString(_ source: String, from start: String.Index) -> String.Index {
        let quote = source[start]
        var index = source.index(after: start)
        while index < source.endIndex {
            if source[index] == "\\" {
                index = source.index(index, offsetBy: 2, limitedBy: source.endIndex) ?? source.endIndex
                continue
            }
            if source[index] == quote { return source.index(after: index) }
            index = source.index(after: index)
        }
        return source.endIndex
    }

    /// Whether `source` is empty: CouchDB answers 404 `not_found` "missing function"
    /// (util.js compileFunction: `if (!source)`).
    public static func isMissing(_ source: String) -> Bool { source.isEmpty }
}
