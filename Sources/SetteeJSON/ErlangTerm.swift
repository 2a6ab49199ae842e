/// A decoded JSON value as Erlang's `io_lib` writes the term CouchDB decodes it to (jiffy's
/// EJSON), for the error reasons that quote a value. Which directive a reason uses is
/// CouchDB's choice, one per message, so each caller says it:
/// - `write` is `~w`: a binary as its bytes, `"x"` as `<<120>>` (mango_opts's reasons,
///   mango_selector's `bad_arg`, `_stats`'s first value);
/// - `print` is `~p`: a binary as text, `<<"x">>`, with `"` and `\` escaped. Where the text
///   is not printable it is written as bytes, and what is printable is the message's:
///   `.unicode` for any character but control ones (mango's sort reasons print `<<"é">>`),
///   `.ascii` for bytes 0x20–0x7E only (chttpd's query-parameter reasons print `<<195,169>>`).
/// Objects are `{[{Key,Value}]}` and `{[]}`, lists `[1,2]`; a float is Erlang's shortest
/// round-trip form (`1.5`, `1.0e3`), an integer as written.
public enum ErlangTerm {
    public enum Printable: Sendable { case unicode, ascii }

    public static func write(_ value: JSONValue) -> String { text(value, printable: nil) }

    public static func print(_ value: JSONValue, printable: Printable = .unicode) -> String {
        text(value, printable: printable)
    }

    private static func text(_ value: JSONValue, printable: Printable?) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): bool ? "true" : "false"
        case .number(let number): self.number(number.text)
        case .string(let string): binary(string, printable: printable)
        case .array(let items): "[" + items.map { text($0, printable: printable) }.joined(separator: ",") + "]"
        case .object(let object):
            "{[" + object.members.map { "{" + binary($0.key, printable: printable) + ","
                + text($0.value, printable: printable) + "}" }.joined(separator: ",") + "]}"
        }
    }

    /// Integers as written; a float as Erlang writes it (io_lib_format's shortest digits and
    /// `insert_decimal`): the digits with a point, or in exponent form when that is shorter
    /// (`100.0`, `1.0e3`, `1234.0`, `0.0001`, `1.0e-5`).
    private static func number(_ literal: String) -> String {
        guard literal.contains(where: { ".eE".contains($0) }), let double = Double(literal), double.isFinite else {
            return literal
        }
        if double == 0 { return double.sign == .minus ? "-0.0" : "0.0" }
        var (digits, place) = shortestDigits(abs(double))
        let sign = double < 0 ? "-" : ""
        if place == 0 { return sign + "0." + digits }
        guard place < 0 || place >= digits.count else {
            digits.insert(".", at: digits.index(digits.startIndex, offsetBy: place))
            return sign + digits
        }
        let exponent = String(place - 1)
        let exponentCost = exponent.count + 1 + (digits.count == 1 ? 2 : 1)
        if place < 0, 2 - place <= exponentCost {
            return sign + "0." + String(repeating: "0", count: -place) + digits
        }
        if place > 0, place - digits.count + 2 <= exponentCost {
            return sign + digits + String(repeating: "0", count: place - digits.count) + ".0"
        }
        let mantissa = digits.count == 1 ? digits + ".0" : String(digits.prefix(1)) + "." + digits.dropFirst()
        return sign + mantissa + "e" + exponent
    }

    /// A positive float's shortest round-trip digits (no leading or trailing zeros) and the
    /// place of the point: the value is 0.`digits` × 10^`place`.
    private static func shortestDigits(_ double: Double) -> (String, Int) {
        var text = "\(double)"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        var place = parts[0].count + exponent
        while digits.count > 1, digits.hasPrefix("0") {
            digits.removeFirst()
            place -= 1
        }
        while digits.count > 1, digits.hasSuffix("0") { digits.removeLast() }
        return (digits, place)
    }

    private static func binary(_ string: String, printable: Printable?) -> String {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty else { return "<<>>" }
        guard let printable, isPrintable(string, printable) else {
            return "<<" + bytes.map(String.init).joined(separator: ",") + ">>"
        }
        var out = "<<\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\">>"
    }

    private static func isPrintable(_ string: String, _ printable: Printable) -> Bool {
        switch printable {
        case .ascii: string.utf8.allSatisfy { (0x20...0x7E).contains($0) }
        case .unicode: string.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F || "\n\r\t".unicodeScalars.contains($0) }
        }
    }
}
