internal import SetteeJSON
internal import SetteeServer

/// Mango queries and indexes: `_find` and `_index` without HTTP, by the server's own code.
extension Database {
    /// The documents matching `query`, decoded as `Value`.
    /// - Throws: ``SetteeError/invalidQuery(error:reason:)`` for a query Mango refuses
    ///   (a sort no index covers, a bad bookmark); ``SetteeError/decoding(id:reason:)``.
    public func find<Value>(_ type: Value.Type, _ query: Query) async throws(SetteeError) -> QueryPage<Value> {
        let request = try query.request()
        let page = try await run { try await EmbeddedMango.find(request, in: self.store) }
        var documents: [Document<Value>] = []
        documents.reserveCapacity(page.docs.count)
        for bytes in page.docs {
            guard case .object(let object)? = try? JSONReader.parse(bytes), let id = object["_id"]?.stringValue else {
                throw .decoding(id: "", reason: "a result without _id")
            }
            documents.append(Document(id: id, revision: object["_rev"]?.stringValue ?? "",
                                      value: try Self.decode(type, bytes, id: id)))
        }
        return QueryPage(documents: documents, bookmark: page.bookmark, warnings: page.warnings)
    }

    /// Creates a json index on `fields` (in this order), for queries that select or sort by them.
    /// - Parameters:
    ///   - fields: the fields, in order, and their direction.
    ///   - name: the index's name (default: derived from its definition, as CouchDB does).
    ///   - designDocument: the design document holding it (default: derived likewise).
    /// - Returns: where it lives, and whether it was new.
    /// - Throws: ``SetteeError/invalidQuery(error:reason:)``, ``SetteeError/forbidden(_:)``
    ///   when the directory's identity is not an admin (indexes live in design documents).
    @discardableResult
    public func createIndex(_ fields: [SortKey], name: String? = nil,
                            designDocument: String? = nil) async throws(SetteeError) -> IndexDescription {
        var body = JSONObject()
        body["index"] = ["fields": .array(fields.map(\.json))]
        if let name { body["name"] = .string(name) }
        if let designDocument { body["ddoc"] = .string(designDocument) }
        let store = self.store
        let identity = data.options.identity
        let created = try await run {
            try await identity.perform { try await EmbeddedMango.createIndex(body, in: store) }
        }
        return IndexDescription(isNew: created.isNew, designDocument: created.id, name: created.name)
    }
}
