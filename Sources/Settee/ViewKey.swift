internal import FoundationEssentials
internal import SetteeJSON

/// Any JSON value, as a view's keys and values are: what ``ViewQuery`` selects rows by
/// (`key`, `keys`, `startkey`, `endkey`), and a row type for views whose keys or values
/// have no Swift type of their own.
///
///     var query = ViewQuery(startKey: ["2026", nil], endKey: ["2026", [:]])   // [:] sorts after everything
///     let rows = try await notes.queryView("byDay", design: "notes", query, key: ViewKey.self, value: Int.self)
///
/// Objects are written with their members in name order.
public enum ViewKey: Sendable, Hashable, Codable, ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([ViewKey])
    case object([String: ViewKey])

    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: ViewKey...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, ViewKey)...) {
        self = .object(Dictionary(elements) { first, _ in first })
    }

    /// `value` as JSON, as its `Encodable` conformance writes it.
    /// - Throws: ``SetteeError/encoding(_:)`` when it does not encode.
    public init<Value: Encodable>(encoding value: Value) throws(SetteeError) {
        let bytes: Data
        do { bytes = try JSONEncoder().encode(value) } catch { throw .encoding(String(describing: error)) }
        guard let json = try? JSONReader.parse(Array(bytes)) else { throw .encoding("\(Value.self) is not JSON") }
        self.init(json)
    }

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let number):
            if let int = Int(number.text) { self = .int(int) } else { self = .double(Double(number.text) ?? 0) }
        case .string(let value): self = .string(value)
        case .array(let values): self = .array(values.map(ViewKey.init))
        case .object(let object):
            self = .object(Dictionary(object.map { ($0.key, ViewKey($0.value)) }) { first, _ in first })
        }
    }

    var json: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .number(JSONNumber(value))
        case .double(let value): value.isFinite ? .number(JSONNumber(value)) : .null
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.json))
        case .object(let members):
            .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ViewKey].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ViewKey].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}
