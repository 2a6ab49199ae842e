/// An error of `_find`, `_explain` or `_index`, with CouchDB's status, error word
/// and reason (mango_error.erl). Values in reasons are printed as Erlang terms
/// (`ErlangTerm`) where CouchDB prints them so.
public struct MangoError: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    public let error: String
    public let reason: String

    public init(_ status: Int = 400, _ error: String, _ reason: String) {
        self.status = status
        self.error = error
        self.reason = reason
    }

    public init(_ selectorError: SelectorError) {
        self.init(400, selectorError.error, selectorError.reason)
    }

    public var description: String { "\(status) \(error): \(reason)" }

    public static func missingKey(_ key: String) -> MangoError {
        MangoError(400, "missing_required_key", "Missing required key: \(key)")
    }

    public static func invalidKey(_ key: String) -> MangoError {
        MangoError(400, "invalid_key", "Invalid key \(key) for this request.")
    }

    static func invalidSortJSON(_ value: JSONValue) -> MangoError {
        MangoError(400, "invalid_sort_json", "Sort must be an array of sort specs, not: \(ErlangTerm.print(value))")
    }

    static func invalidSortField(_ value: JSONValue) -> MangoError {
        MangoError(400, "invalid_sort_field", "Invalid sort field: \(ErlangTerm.print(value))")
    }

    static let mixedSort = MangoError(
        400, "unsupported_mixed_sort", "Sorts currently only support a single direction for all fields.")

    public static let noUsableIndex = MangoError(
        400, "no_usable_index", "No index exists for this sort, try indexing by the sort fields.")

    public static func invalidBookmark(_ value: String) -> MangoError {
        MangoError(400, "invalid_bookmark", "Invalid bookmark value: \(JSONWriter.string(.string(value)))")
    }
}
