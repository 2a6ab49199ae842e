internal import SetteeJSON

/// A Mango selector (CouchDB's `_find` query language), built in Swift:
///
///     let cheap = Selector.field("type") == "book" && Selector.field("price") < 10
///     let tagged = Selector.field("tags").contains("swift") || !Selector.field("draft").exists()
///
/// or parsed from JSON text (``init(json:)``) for anything the builder lacks.
/// Field paths use Mango's dots (`"address.city"`); a dot inside a name is escaped `\.`.
public struct Selector: Sendable, Hashable, CustomStringConvertible {
    let json: JSONValue

    init(_ json: JSONValue) { self.json = json }

    /// A selector from its JSON text, as `_find`'s `selector` member.
    /// - Throws: ``SetteeError/invalidQuery(error:reason:)`` for text that is not a JSON
    ///   object or that Mango refuses.
    public init(json text: String) throws(SetteeError) {
        guard case .object? = try? JSONReader.parse(text), let value = try? JSONReader.parse(text) else {
            throw .invalidQuery(error: "bad_request", reason: "a selector must be a JSON object")
        }
        do {
            _ = try FindRequest(parsing: ["selector": value])
        } catch {
            throw .invalidQuery(error: error.error, reason: error.reason)
        }
        json = value
    }

    /// Every document (`{"_id": {"$gt": null}}`).
    public static let all = Selector(["_id": ["$gt": nil]])

    /// The field at `path`, to compare.
    public static func field(_ path: String) -> Field { Field(path: path) }

    /// Both (`$and`).
    public static func && (lhs: Selector, rhs: Selector) -> Selector { Selector(["$and": [lhs.json, rhs.json]]) }
    /// Either (`$or`).
    public static func || (lhs: Selector, rhs: Selector) -> Selector { Selector(["$or": [lhs.json, rhs.json]]) }
    /// Not (`$not`).
    public static prefix func ! (selector: Selector) -> Selector { Selector(["$not": selector.json]) }
    /// All of them (`$and`).
    public static func all(_ selectors: [Selector]) -> Selector { Selector(["$and": .array(selectors.map(\.json))]) }
    /// Any of them (`$or`).
    public static func any(_ selectors: [Selector]) -> Selector { Selector(["$or": .array(selectors.map(\.json))]) }

    /// The selector as JSON text.
    public var description: String { String(decoding: JSONWriter.serialize(json), as: UTF8.self) }
}

/// A field of a ``Selector``, compared with operators or methods.
public struct Field: Sendable, Hashable {
    public let path: String

    public init(path: String) { self.path = path }

    func condition(_ op: String, _ value: JSONValue) -> Selector {
        var inner = JSONObject()
        inner[op] = value
        var outer = JSONObject()
        outer[path] = .object(inner)
        return Selector(.object(outer))
    }

    public static func == (field: Field, value: QueryValue) -> Selector { field.condition("$eq", value.json) }
    public static func != (field: Field, value: QueryValue) -> Selector { field.condition("$ne", value.json) }
    public static func < (field: Field, value: QueryValue) -> Selector { field.condition("$lt", value.json) }
    public static func <= (field: Field, value: QueryValue) -> Selector { field.condition("$lte", value.json) }
    public static func > (field: Field, value: QueryValue) -> Selector { field.condition("$gt", value.json) }
    public static func >= (field: Field, value: QueryValue) -> Selector { field.condition("$gte", value.json) }

    /// Present (or absent, with `false`): `$exists`.
    public func exists(_ isPresent: Bool = true) -> Selector { condition("$exists", .bool(isPresent)) }
    /// Equal to one of `values`: `$in`.
    public func isIn(_ values: [QueryValue]) -> Selector { condition("$in", .array(values.map(\.json))) }
    /// Equal to none of `values`: `$nin`.
    public func isNotIn(_ values: [QueryValue]) -> Selector { condition("$nin", .array(values.map(\.json))) }
    /// An array holding `value`: `$all` of one.
    public func contains(_ value: QueryValue) -> Selector { condition("$all", [value.json]) }
    /// An array holding every one of `values`: `$all`.
    public func containsAll(_ values: [QueryValue]) -> Selector { condition("$all", .array(values.map(\.json))) }
    /// An array with an element matching `selector` (its fields relative to the element): `$elemMatch`.
    public func hasElement(matching selector: Selector) -> Selector { condition("$elemMatch", selector.json) }
    /// An array of `count` elements: `$size`.
    public func hasCount(_ count: Int) -> Selector { condition("$size", .number(JSONNumber(count))) }
    /// A string matching the PCRE `pattern`: `$regex`.
    public func matches(regex pattern: String) -> Selector { condition("$regex", .string(pattern)) }
    /// A string starting with `prefix`: `$beginsWith`.
    public func begins(with prefix: String) -> Selector { condition("$beginsWith", .string(prefix)) }
}

/// A JSON value in a selector.
public enum QueryValue: Sendable, Hashable, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([QueryValue])

    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: QueryValue...) { self = .array(elements) }

    var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .number(JSONNumber(value))
        case .double(let value): value.isFinite ? .number(JSONNumber(value)) : .null
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.json))
        }
    }
}
