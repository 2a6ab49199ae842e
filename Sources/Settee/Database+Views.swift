internal import FoundationEssentials
internal import SetteeJSON
internal import SetteeServer
internal import SetteeStore

/// Map/reduce views: JavaScript `map` and `reduce` functions in a design document, run by
/// the JavaScript engine `settee serve` runs them with (JavaScriptCore, loaded when first
/// needed). A query reads the same index `GET /{db}/_design/{ddoc}/_view/{view}` reads,
/// brought up to date first, by the server's own view code.
extension Database {
    /// Whether JavaScriptCore could be loaded on this machine (Debian's
    /// `libjavascriptcoregtk-4.1-0`, or the library `SETTEE_JAVASCRIPT_LIBRARY` names).
    /// Without it, view queries throw ``SetteeError/javaScriptUnavailable(_:)``; everything
    /// else works.
    public static var isJavaScriptAvailable: Bool { EmbeddedViews.isJavaScriptAvailable }

    /// Saves view `name` in design document `_design/{design}` (created when missing; its
    /// other members and views are kept).
    ///
    ///     try await notes.saveView("byTag", design: "notes",
    ///                              map: "function (doc) { doc.tags.forEach(function (t) { emit(t, 1); }); }",
    ///                              reduce: "_count")
    ///
    /// - Parameters:
    ///   - name: the view's name.
    ///   - design: the design document's name, without `_design/`.
    ///   - map: a JavaScript `function (doc) { ... emit(key, value) ... }`.
    ///   - reduce: a built-in (`_count`, `_sum`, `_stats`, `_approx_count_distinct`) or a
    ///     JavaScript `function (keys, values, rereduce) { ... }`; nil for none.
    /// - Returns: the design document's new revision.
    /// - Throws: ``SetteeError/invalidDocument(_:)`` for a function that does not compile
    ///   (CouchDB's `compilation_error`); ``SetteeError/forbidden(_:)`` when the directory's
    ///   identity is not an admin; ``SetteeError/conflict(id:currentRevision:)`` when the
    ///   design document changed meanwhile.
    @discardableResult
    public func saveView(_ name: String, design: String, map: String,
                         reduce: String? = nil) async throws(SetteeError) -> String {
        var view: JSONObject = ["map": .string(map)]
        if let reduce { view["reduce"] = .string(reduce) }
        return try await updateDesignDocument(design) { body in
            var views = body["views"]?.objectValue ?? JSONObject()
            views[name] = .object(view)
            body["views"] = .object(views)
        }
    }

    /// The rows of view `view` of `_design/{design}` for `query`, keys decoded as `Key` and
    /// values as `Value` (``ViewKey`` for either when it has no Swift type).
    ///
    ///     let counts = try await notes.queryView("byTag", design: "notes", ViewQuery(group: true),
    ///                                            key: String.self, value: Int.self)
    ///     for row in counts.rows { print(row.key, row.value) }
    ///
    /// - Throws: ``SetteeError/javaScriptUnavailable(_:)`` without JavaScriptCore;
    ///   ``SetteeError/notFound(id:reason:)`` without the design document or view
    ///   (`missing`, `missing_named_view`); ``SetteeError/invalidQuery(error:reason:)`` for
    ///   options CouchDB refuses (`reduce` on a map-only view, `include_docs` with reduce);
    ///   ``SetteeError/designFunction(error:reason:)`` when a function throws or runs past
    ///   its limits; ``SetteeError/decoding(id:reason:)`` when a key or value does not
    ///   decode.
    public func queryView<Key, Value>(_ view: String, design: String, _ query: ViewQuery = ViewQuery(),
                                      key: Key.Type, value: Value.Type) async throws(SetteeError)
        -> ViewResult<Key, Value> {
        let node = data.node
        let store = self.store
        let options = query.json
        let bytes = try await run(id: "_design/" + design) {
            try await EmbeddedViews.query(design: design, view: view, options: options, in: store, node: node)
        }
        return try Self.viewResult(bytes, key: key, value: value)
    }

    /// Decodes a view response body (`{"total_rows", "offset", "rows": [...]}`).
    static func viewResult<Key, Value>(_ bytes: [UInt8], key: Key.Type,
                                       value: Value.Type) throws(SetteeError) -> ViewResult<Key, Value> {
        guard case .object(let body)? = try? JSONReader.parse(bytes), let list = body["rows"]?.arrayValue else {
            throw .decoding(id: "", reason: "the view answered no rows")
        }
        var rows: [ViewRow<Key, Value>] = []
        rows.reserveCapacity(list.count)
        for row in list {
            let id = row["id"]?.stringValue
            if let error = row["error"]?.stringValue {
                throw .designFunction(error: error, reason: row["reason"]?.stringValue ?? "")
            }
            let document = row["doc"].flatMap { $0 == .null ? nil : JSONWriter.serialize($0) }
            rows.append(ViewRow(id: id, key: try decodeJSON(key, row["key"] ?? .null, id: id ?? "key"),
                                value: try decodeJSON(value, row["value"] ?? .null, id: id ?? "value"),
                                documentJSON: document))
        }
        return ViewResult(totalRows: body["total_rows"]?.intValue, offset: body["offset"]?.intValue, rows: rows)
    }

    private static func decodeJSON<T: Decodable>(_ type: T.Type, _ json: JSONValue, id: String) throws(SetteeError) -> T {
        if T.self == ViewKey.self, let key = ViewKey(json) as? T { return key }
        do {
            return try JSONDecoder().decode(type, from: Data(JSONWriter.serialize(json)))
        } catch {
            throw .decoding(id: id, reason: String(describing: error))
        }
    }

    /// Reads design document `_design/{design}` (an empty one when missing), lets `change`
    /// edit its body, and saves it on the revision read.
    /// - Returns: the new revision.
    func updateDesignDocument(_ design: String,
                              _ change: (inout JSONObject) throws(SetteeError) -> Void) async throws(SetteeError) -> String {
        let id = "_design/" + design
        let current = try await run(id: id) { try await self.store.winner(id: id) }
        var body = JSONObject()
        var base: RevisionID?
        if let current, !current.isDeleted {
            base = current.rev
            if let bytes = current.body, case .object(let object)? = try? JSONReader.parse(bytes) { body = object }
        }
        try change(&body)
        let bytes = JSONWriter.serialize(.object(body))
        let update = DocumentUpdate(id: id, body: bytes, baseRevision: base,
                                    attachments: (current.flatMap { $0.isDeleted ? nil : $0.attachments } ?? []).map { .stub(name: $0.name, digest: $0.digest) })
        let result = try await run(id: id) { try await self.write([update]).first ?? .failure(.conflict) }
        switch result {
        case .success(let rev): return rev.description
        case .failure(let error): throw await failure(error, id: id)
        }
    }
}
