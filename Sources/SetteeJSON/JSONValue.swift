/// A JSON value as CouchDB sees it: objects keep their members in the order they
/// were written, and numbers keep the literal text they were written with, so a
/// document read back is byte-for-byte what was stored.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON number, kept as its literal text (already validated by the reader).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number as written, e.g. `"-1.50e3"`.
    public let text: String

    /// Wraps literal text the caller knows to be a valid JSON number.
    public init(text: String) { self.text = text }
    public init(_ value: Int) { self.text = String(value) }
    public init(_ value: Int64) { self.text = String(value) }
    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            self.text = String(Int64(value))
        } else {
            self.text = value.isFinite ? "\(value)" : "null"
        }
    }

    /// The value as an integer when it is written as one and fits in 64 bits.
    public var int: Int64? { Int64(text) }
    /// The value as a double (integers included).
    public var double: Double { Double(text) ?? .nan }
    public var description: String { text }
}

extension JSONValue {
    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { return n } else { return nil } }
    public var intValue: Int? { numberValue?.int.flatMap { Int(exactly: $0) } }
    public var doubleValue: Double? { numberValue?.double }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }

    /// The member named `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// The JSON type's name, as CouchDB's error reasons and `$type` use it.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue {
    /// An integer value (`.number`).
    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
}
