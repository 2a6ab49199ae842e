/// Why a Mango selector could not be compiled. Rendered by the server as
/// `400 {"error": error, "reason": reason}`, with CouchDB's words (mango_error.erl,
/// module `mango_selector`).
public struct SelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// CouchDB's `error` word: `bad_arg`, `invalid_operator`, `not_supported`,
    /// `invalid_selector`, `invalid_selector_json`, `invalid_field_name`.
    public let error: String
    /// A human-readable reason, as CouchDB phrases it. Operands are written as JSON
    /// where CouchDB prints an Erlang term.
    public let reason: String

    public init(error: String, reason: String) {
        self.error = error
        self.reason = reason
    }

    public var description: String { "\(error): \(reason)" }

    /// An operator given an operand it cannot use, e.g. `{"$in": 1}`. The operand is
    /// printed as mango_selector's `~w` prints it: `"x"` as `<<120>>`, `{}` as `{[]}`.
    static func badArgument(_ op: String, _ argument: JSONValue) -> SelectorError {
        SelectorError(error: "bad_arg",
                      reason: "Bad argument for operator \(op): \(ErlangTerm.write(argument))")
    }

    static func invalidOperator(_ op: String) -> SelectorError {
        SelectorError(error: "invalid_operator", reason: "Invalid operator: \(op)")
    }

    static func notSupported(_ op: String) -> SelectorError {
        SelectorError(error: "not_supported", reason: "Unsupported operator: \(op)")
    }

    static let missingFieldName = SelectorError(
        error: "invalid_selector", reason: "One or more conditions is missing a field name.")

    static func notAnObject(_ value: JSONValue) -> SelectorError {
        SelectorError(error: "invalid_selector_json",
                      reason: "Selector must be a JSON object, not: \(ErlangTerm.write(value))")
    }

    static func invalidFieldName(_ field: String) -> SelectorError {
        SelectorError(error: "invalid_field_name", reason: "Invalid field name: \(field)")
    }
}
