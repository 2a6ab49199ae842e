public import SetteeJSON

/// One view of a design document: `views.NAME.map` and optional `reduce`
/// (docs.couchdb.org "Design Documents" › "View Functions").
public struct ViewDefinition: Sendable, Equatable {
    public let designDocument: String
    public let name: String
    public let map: String
    /// `_count`, `_sum`, `_stats`, `_approx_count_distinct`, or JavaScript source.
    public let reduce: String?
    /// `views.lib` of the design document: CommonJS modules map functions may
    /// `require` (CouchDB lets map functions see only these).
    public let library: JSONValue?
    /// How its keys sort: the view's `options.collation` ("raw"), else
    /// CouchDB's default, ICU's (docs.couchdb.org "Views Collation" › "Raw collation").
    public let collation: KeyCollation
    /// Names the index: views with the same map function share one, as CouchDB's
    /// signature does across design documents with the same functions.
    public let signature: String
    /// The design document's `options.local_seq`: documents are mapped with `_local_seq`.
    public let localSeq: Bool
    /// The design document's `options.include_design`: design documents are mapped too.
    public let includeDesign: Bool

    public init(designDocument: String, name: String, map: String, reduce: String?, library: JSONValue? = nil,
                collation: KeyCollation = .unicode, localSeq: Bool = false, includeDesign: Bool = false) {
        self.designDocument = designDocument
        self.name = name
        self.map = map
        self.reduce = reduce
        self.library = library
        self.collation = collation
        self.localSeq = localSeq
        self.includeDesign = includeDesign
        // The options change what is mapped, so they are part of the index's name (as of CouchDB's signature).
        let options = (localSeq ? " local_seq" : "") + (includeDesign ? " include_design" : "")
        signature = Self.signature(map: map, library: library, collation: collation, options: options)
    }

    /// What `require` in the map function resolves paths against: `views.lib`, empty
    /// without one (a map function has `require` either way, as in couchjs).
    public var modules: JSONValue? { ["views": ["lib": library ?? .object([:])]] }

    /// The view `name` of design document `id`, nil when it has none. Views of a
    /// `"language": "query"` design document are Mango's, not JavaScript.
    public static func named(_ name: String, designDocumentID id: String, body: JSONValue) -> ViewDefinition? {
        guard (body["language"]?.stringValue ?? "javascript") == "javascript",
              let view = body["views"]?[name]?.objectValue, let map = view["map"]?.stringValue else { return nil }
        // The view's own option; a design document's `options.collation` does not count.
        let collation: KeyCollation = view["options"]?["collation"]?.stringValue == "raw" ? .raw : .unicode
        return ViewDefinition(designDocument: id, name: name, map: map, reduce: view["reduce"]?.stringValue,
                              library: body["views"]?["lib"], collation: collation,
                              localSeq: body["options"]?["local_seq"] == .bool(true),
                              includeDesign: body["options"]?["include_design"] == .bool(true))
    }

    /// The collation is part of what the index holds: ICU's collator version too, so
    /// keys sorted by another ICU are rebuilt rather than read in a wrong order.
    private static func signature(map: String, library: JSONValue?, collation: KeyCollation, options: String) -> String {
        let order = (collation == .raw ? "raw" : "icu " + UnicodeCollator.version) + options
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
        for byte in ("javascript\u{0}" + map + "\u{0}" + (library.map(JSONWriter.string) ?? "") + "\u{0}" + order).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        // 17 hex digits: never the 16 of a Mango index's signature.
        return "f" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The built-in reduce this view names, nil for JavaScript or none.
    public var builtinReduce: BuiltinReduce? { reduce.flatMap(BuiltinReduce.named) }

    /// Checks what CouchDB checks when a design document is saved: built-in reduce
    /// names (`invalid_design_doc`); compiling is `ViewEngine`'s.
    public func validateReduce() -> String? {
        guard let reduce, reduce.hasPrefix("_"), BuiltinReduce.named(reduce) == nil else { return nil }
        return "`\(reduce)` is not a supported reduce function."
    }
}
