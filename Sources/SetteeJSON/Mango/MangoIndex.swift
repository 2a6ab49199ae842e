/*
 Mango indexes as CouchDB stores them: a `json` index is a view of a design
 document whose `language` is "query" (mango_idx_view.erl):

   {"language": "query", "views": {"NAME": {
       "map": {"fields": {"year": "asc"}, "partial_filter_selector": {}},
       "reduce": "_count", "options": {"def": {"fields": ["year"]}}}}}

 so indexes replicate with their design documents, and a database replicated from
 CouchDB brings its indexes along. A document is in a json index only when it has
 every indexed field (and matches the partial filter); design documents never are.
 `_all_docs` is the "special" index every database has.
*/

/// One Mango index: the special `_all_docs` index or a `json` index of a design document.
public struct MangoIndex: Sendable {
    /// `_design/...`; nil for `_all_docs`.
    public let ddoc: String?
    public let name: String
    /// The indexed fields, in order (the special index: `_id`).
    public let columns: [String]
    /// The direction the definition was written with (ordering ignores it, as CouchDB's does).
    public let isDescending: Bool
    /// The definition's `partial_filter_selector`, when not empty.
    public let partialFilter: JSONValue?
    let paths: [FieldPath]
    let partialSelector: Selector?

    public var isSpecial: Bool { ddoc == nil }

    /// `_all_docs`, ordered by `_id`.
    public static let allDocs = MangoIndex(ddoc: nil, name: "_all_docs", columns: ["_id"], isDescending: false,
                                           partialFilter: nil, paths: [FieldPath(keys: ["_id"])], partialSelector: nil)

    init(ddoc: String?, name: String, columns: [String], isDescending: Bool, partialFilter: JSONValue?,
         paths: [FieldPath], partialSelector: Selector?) {
        self.ddoc = ddoc
        self.name = name
        self.columns = columns
        self.isDescending = isDescending
        self.partialFilter = partialFilter
        self.paths = paths
        self.partialSelector = partialSelector
    }

    /// A json index over `fields`, as `_index` POST defines one.
    /// - Throws: CouchDB's error for a field name or partial filter it cannot use.
    public init(ddoc: String, name: String, fields: MangoSort, partialFilter: JSONValue?) throws(MangoError) {
        var paths: [FieldPath] = []
        for field in fields.fields {
            do { paths.append(try FieldPath(parsing: field)) } catch { throw MangoError(error) }
        }
        var partial: JSONValue?
        var selector: Selector?
        if let partialFilter, partialFilter.objectValue?.isEmpty == false {
            do { selector = try Selector(partialFilter) } catch { throw MangoError(error) }
            partial = partialFilter
        } else if let partialFilter, partialFilter.objectValue == nil {
            throw MangoError(SelectorError.notAnObject(partialFilter))
        }
        self.init(ddoc: ddoc, name: name, columns: fields.fields, isDescending: fields.isDescending,
                  partialFilter: partial, paths: paths, partialSelector: selector)
    }

    /// The json indexes a design document defines; none unless its `language` is "query".
    /// A view that does not parse as an index is left out, as CouchDB leaves it.
    public static func indexes(designDocumentID id: String, body: JSONValue) -> [MangoIndex] {
        guard body["language"]?.stringValue == "query", let views = body["views"]?.objectValue else { return [] }
        return views.compactMap { view -> MangoIndex? in
            guard let map = view.value["map"]?.objectValue, let fields = map["fields"]?.objectValue else { return nil }
            let sort = try? MangoSort(parsing: .array(fields.map { .object(JSONObject([($0.key, $0.value)])) }))
            guard let sort else { return nil }
            return try? MangoIndex(ddoc: id, name: view.key, fields: sort, partialFilter: map["partial_filter_selector"])
        }
    }

    /// The view CouchDB stores for this index under `views.NAME` of its design document;
    /// `definition` is the request's `index` object, kept as `options.def`.
    public func view(definition: JSONValue) -> JSONValue {
        var fields = JSONObject()
        for column in columns { fields[column] = .string(isDescending ? "desc" : "asc") }
        let map: JSONValue = ["fields": .object(fields), "partial_filter_selector": partialFilter ?? .object([:])]
        return ["map": map, "reduce": "_count", "options": ["def": definition]]
    }

    /// The index's definition as `_index` lists it: `{"fields": [{"f": "asc"}], ...}`.
    public var definitionJSON: JSONValue {
        var def: JSONObject = ["fields": MangoSort(fields: columns, isDescending: isDescending).json]
        if let partialFilter { def["partial_filter_selector"] = partialFilter }
        return .object(def)
    }

    /// The index as `GET /{db}/_index` and `_explain` show it.
    public var json: JSONValue {
        guard let ddoc else {
            return ["ddoc": .null, "name": .string(name), "type": "special", "def": definitionJSON]
        }
        return ["ddoc": .string(ddoc), "name": .string(name), "type": "json", "partitioned": false,
                "def": definitionJSON]
    }

    /// Names what the index holds (fields and partial filter, not its name): indexes
    /// with equal signatures share one stored table.
    public var signature: String {
        // ICU's collator version: keys another ICU sorted are rebuilt, not misread.
        let text = JSONWriter.serialize(["fields": .array(columns.map { .string($0) }),
                                         "partial_filter_selector": partialFilter ?? .null,
                                         "collator": .string(UnicodeCollator.version)])
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
        for byte in text {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The index key of a document (`body` without `_id`/`_rev`), or nil when it is
    /// not in the index: a design document, one missing an indexed field, or one
    /// the partial filter rejects. The key is the fields' values, then the id.
    public func key(id: String, rev: String, body: JSONValue) -> [UInt8]? {
        guard !id.hasPrefix("_design/") else { return nil }
        let document = Self.withMeta(id: id, rev: rev, body: body)
        if let partialSelector, !partialSelector.matches(document) { return nil }
        var key: [UInt8] = []
        for path in paths {
            guard case .found(let value) = path.lookup(in: document) else { return nil }
            IndexKeyEncoding.append(value, to: &key)
        }
        IndexKeyEncoding.appendDocumentID(id, to: &key)
        return key
    }

    /// The document as selectors see it: `_id` and `_rev` first, then the body.
    public static func withMeta(id: String, rev: String, body: JSONValue) -> JSONValue {
        var members: [JSONObject.Member] = [.init(key: "_id", value: .string(id)), .init(key: "_rev", value: .string(rev))]
        members.append(contentsOf: body.objectValue?.members ?? [])
        return .object(JSONObject(members: members))
    }
}
