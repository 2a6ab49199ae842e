internal import SetteeJSON

/// The options of a map/reduce view query: CouchDB's (API Reference › Design Documents ›
/// Views, `GET /{db}/_design/{ddoc}/_view/{view}`), with the same meaning and defaults.
///
///     var query = ViewQuery(startKey: "a", endKey: "b", limit: 10)
///     query.includeDocs = true
///     let page = try await notes.queryView("byTag", design: "notes", query, key: String.self, value: Int.self)
public struct ViewQuery: Sendable, Hashable {
    /// Only rows with this key (`key`).
    public var key: ViewKey?
    /// Only rows with these keys, in this order (`keys`).
    public var keys: [ViewKey]?
    /// Rows from this key on (`startkey`), or, with ``descending``, down from it.
    public var startKey: ViewKey?
    /// Rows up to this key (`endkey`), included unless ``inclusiveEnd`` is false.
    public var endKey: ViewKey?
    public var inclusiveEnd = true
    /// At most this many rows (nil: all).
    public var limit: Int?
    /// Rows to leave out first.
    public var skip = 0
    /// Rows in descending key order (``startKey`` then names the upper end).
    public var descending = false
    /// Whether the view's reduce runs (nil: when it has one, as CouchDB's default).
    public var reduce: Bool?
    /// One reduced row per distinct key (`group`).
    public var group = false
    /// One reduced row per distinct first `groupLevel` elements of array keys (`group_level`).
    public var groupLevel: Int?
    /// Each map row carries its document (``ViewRow/document(_:)``); a row whose value has
    /// an `_id` carries that document instead (CouchDB's linked documents).
    public var includeDocs = false

    public init(key: ViewKey? = nil, keys: [ViewKey]? = nil, startKey: ViewKey? = nil, endKey: ViewKey? = nil,
                limit: Int? = nil, skip: Int = 0, descending: Bool = false, reduce: Bool? = nil,
                group: Bool = false, groupLevel: Int? = nil, includeDocs: Bool = false) {
        self.key = key
        self.keys = keys
        self.startKey = startKey
        self.endKey = endKey
        self.limit = limit
        self.skip = skip
        self.descending = descending
        self.reduce = reduce
        self.group = group
        self.groupLevel = groupLevel
        self.includeDocs = includeDocs
    }

    /// The options as a `POST .../_view/{view}` body (which the server's view code reads).
    var json: JSONObject {
        var object = JSONObject()
        if let key { object["key"] = key.json }
        if let keys { object["keys"] = .array(keys.map(\.json)) }
        if let startKey { object["startkey"] = startKey.json }
        if let endKey { object["endkey"] = endKey.json }
        if !inclusiveEnd { object["inclusive_end"] = false }
        if let limit { object["limit"] = .number(JSONNumber(limit)) }
        if skip != 0 { object["skip"] = .number(JSONNumber(skip)) }
        if descending { object["descending"] = true }
        if let reduce { object["reduce"] = .bool(reduce) }
        if group { object["group"] = true }
        if let groupLevel { object["group_level"] = .number(JSONNumber(groupLevel)) }
        if includeDocs { object["include_docs"] = true }
        return object
    }
}

/// A view's answer: its rows in key order (or reduced), and, for map rows, where they
/// stand in the whole index.
public struct ViewResult<Key: Decodable & Sendable, Value: Decodable & Sendable>: Sendable {
    /// Rows in the whole view (nil for reduced results).
    public let totalRows: Int?
    /// Rows of the view before the first one here (nil for reduced results).
    public let offset: Int?
    public let rows: [ViewRow<Key, Value>]
}

/// One row of a view: an emitted key and value and the document that emitted it, or,
/// reduced, a group's key (nil when not grouped) and its reduction.
public struct ViewRow<Key: Decodable & Sendable, Value: Decodable & Sendable>: Sendable {
    /// The id of the document that emitted the row (nil for a reduced row).
    public let id: String?
    public let key: Key
    public let value: Value
    /// The row's document as JSON (with `_id`, `_rev`), when asked for with ``ViewQuery/includeDocs``.
    let documentJSON: [UInt8]?

    /// The document this row carries (``ViewQuery/includeDocs``) decoded as `Type`; nil
    /// when the query did not ask for documents, or the document is missing or deleted.
    /// - Throws: ``SetteeError/decoding(id:reason:)`` when it does not decode as `Type`.
    public func document<Type: Codable & Sendable>(_ type: Type.Type) throws(SetteeError) -> Document<Type>? {
        guard let documentJSON, case .object(let object)? = try? JSONReader.parse(documentJSON),
              let id = object["_id"]?.stringValue else { return nil }
        let value = try Database.decode(type, documentJSON, id: id)
        return Document(id: id, revision: object["_rev"]?.stringValue ?? "", value: value)
    }
}
