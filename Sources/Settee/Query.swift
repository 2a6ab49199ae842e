internal import SetteeJSON

/// A Mango query: a selector plus CouchDB `_find`'s options.
///
///     var query = Query(Selector.field("type") == "note", sort: [.ascending("created")], limit: 20)
///     let page = try await notes.find(Note.self, query)
///     query.bookmark = page.bookmark          // the next 20
public struct Query: Sendable, Hashable {
    public var selector: Selector
    /// Sort order; each field needs an index that covers it (``Database/createIndex(_:name:designDocument:)``).
    public var sort: [SortKey]
    /// At most this many documents (CouchDB's default: 25).
    public var limit: Int
    public var skip: Int
    /// Where to start: a previous page's ``QueryPage/bookmark``.
    public var bookmark: String?
    /// Only these fields of each document (nil: whole documents).
    public var fields: [String]?
    /// The design document (and index name, `"ddoc/name"`) to use.
    public var useIndex: String?

    public init(_ selector: Selector, sort: [SortKey] = [], limit: Int = 25, skip: Int = 0,
                bookmark: String? = nil, fields: [String]? = nil, useIndex: String? = nil) {
        self.selector = selector
        self.sort = sort
        self.limit = limit
        self.skip = skip
        self.bookmark = bookmark
        self.fields = fields
        self.useIndex = useIndex
    }

    /// `_find`'s request body.
    var json: JSONValue {
        var object = JSONObject()
        object["selector"] = selector.json
        if !sort.isEmpty { object["sort"] = .array(sort.map(\.json)) }
        object["limit"] = .number(JSONNumber(limit))
        object["skip"] = .number(JSONNumber(skip))
        if let bookmark { object["bookmark"] = .string(bookmark) }
        if let fields { object["fields"] = .array(fields.map { .string($0) }) }
        if let useIndex { object["use_index"] = .string(useIndex) }
        return .object(object)
    }

    /// Mango's form of it, checked.
    func request() throws(SetteeError) -> FindRequest {
        do { return try FindRequest(parsing: json) } catch { throw .invalidQuery(error: error.error, reason: error.reason) }
    }
}

/// A field to sort or index by, and its direction.
public struct SortKey: Sendable, Hashable {
    public let field: String
    public let isAscending: Bool

    public init(_ field: String, ascending: Bool = true) {
        self.field = field
        isAscending = ascending
    }

    public static func ascending(_ field: String) -> SortKey { SortKey(field) }
    public static func descending(_ field: String) -> SortKey { SortKey(field, ascending: false) }

    var json: JSONValue {
        var object = JSONObject()
        object[field] = .string(isAscending ? "asc" : "desc")
        return .object(object)
    }
}

/// One page of a query's results.
public struct QueryPage<Value: Codable & Sendable>: Sendable {
    public let documents: [Document<Value>]
    /// Where the next page starts (set it as the next query's ``Query/bookmark``).
    public let bookmark: String
    /// Mango's advice (no index fits, too many documents examined).
    public let warnings: [String]
}

/// An index made by ``Database/createIndex(_:name:designDocument:)``.
public struct IndexDescription: Sendable, Hashable {
    /// False when an identical index existed already.
    public let isNew: Bool
    /// Its design document's id (`_design/...`).
    public let designDocument: String
    public let name: String
}
