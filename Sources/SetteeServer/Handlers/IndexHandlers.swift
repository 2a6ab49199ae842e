import SetteeHTTP
import SetteeJSON
import SetteeStore
internal import Crypto

/// `/{db}/_index`: list, create and delete Mango json indexes (CouchDB API
/// Reference › Databases › /{db}/_index; mango_httpd.erl, mango_idx.erl). An index
/// is a view of a `"language": "query"` design document (`MangoIndex`); deleting
/// the last one deletes the design document, and drops its stored table.
enum IndexHandlers {
    static func list(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let indexes = [MangoIndex.allDocs] + (try await MangoIndexes.all(database))
        var limit = indexes.count
        var skip = 0
        if let text = context.query["limit"] {
            guard let value = Int(text), value >= 1 else { throw listParametersError }
            limit = value
        }
        if let text = context.query["skip"] {
            guard let value = Int(text), value >= 0 else { throw listParametersError }
            skip = min(value, indexes.count)
        }
        let page = indexes.dropFirst(skip).prefix(limit)
        return JSONResponse.ok(["total_rows": .int(indexes.count), "indexes": .array(page.map(\.json))])
    }

    static func create(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let created = try await createIndex(try await context.jsonBody().object(), in: database)
        return JSONResponse.ok(["result": .string(created.isNew ? "created" : "exists"), "id": .string(created.id),
                                "name": .string(created.name)])
    }

    /// Creates the json index `body` defines (`POST /{db}/_index`'s body), in its design
    /// document: the HTTP handler's work, shared with the embedding API.
    /// - Returns: whether it is new (false: it existed already), its design document and name.
    /// - Throws: `MangoError` for a bad definition; the store's errors.
    static func createIndex(_ body: JSONObject, in database: Database) async throws
        -> (isNew: Bool, id: String, name: String) {
        guard let definition = body["index"] else { throw MangoError.missingKey("index") }
        for member in body where !["index", "type", "name", "ddoc", "w", "partitioned"].contains(member.key) {
            throw MangoError.invalidKey(member.key)
        }
        let type = try optionalString(body["type"]) ?? "json"
        switch type {
        case "json": break
        case "text", "nouveau": throw CouchError(503, "required index service unavailable", type)
        default: throw MangoError(400, "invalid_index", "Invalid type for index: \(type)")
        }
        guard case .object(let def) = definition else {
            throw MangoError(400, "invalid_index_json", "Index definition must be a JSON object.")
        }
        guard let fieldsJSON = def["fields"] else { throw MangoError.missingKey("fields") }
        for member in def where !["fields", "partial_filter_selector"].contains(member.key) {
            throw MangoError.invalidKey(member.key)
        }
        let fields = try MangoSort(parsing: fieldsJSON)
        let autoName = autoName(definition, type: type)
        let name = try optionalString(body["name"]) ?? autoName
        let ddocName = try optionalString(body["ddoc"]) ?? autoName
        let ddoc = ddocName.hasPrefix("_design/") ? ddocName : "_design/" + ddocName
        let index = try MangoIndex(ddoc: ddoc, name: name, fields: fields, partialFilter: def["partial_filter_selector"])
        let view = index.view(definition: definition)

        let current = try await database.winner(id: ddoc)
        var document = JSONObject()
        if let current, !current.isDeleted, let bytes = current.body, case .object(let object) = try JSONReader.parse(bytes) {
            document = object
        }
        var views = document["views"]?.objectValue ?? JSONObject()
        if views[name] == view, document["language"]?.stringValue == "query" { return (false, ddoc, name) }
        views[name] = view
        if document["language"] == nil { document["language"] = "query" }
        document["views"] = .object(views)
        try await save(database, id: ddoc, body: .object(document), base: current)
        return (true, ddoc, name)
    }

    static func delete(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        guard let ddocName = context.parameters[.ddoc], let type = context.parameters[.type],
              let name = context.parameters[.name] else { throw CouchError.notFound() }
        let ddoc = ddocName.hasPrefix("_design/") ? ddocName : "_design/" + ddocName
        let indexes = try await MangoIndexes.all(database)
        guard type == "json", indexes.contains(where: { $0.ddoc == ddoc && $0.name == name }) else {
            throw CouchError.notFound()
        }
        try await removeViews(database, ddoc: ddoc) { $0 == name }
        try await dropUnused(database)
        return JSONResponse.ok()
    }

    static func bulkDelete(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let body = try await context.jsonBody().object()
        guard let ids = body["docids"]?.arrayValue else {
            throw MangoError.missingKey("docids")
        }
        let indexes = try await MangoIndexes.all(database)
        var success: [JSONValue] = []
        var fail: [JSONValue] = []
        for id in ids.compactMap(\.stringValue) {
            let ddoc = id.hasPrefix("_design/") ? id : "_design/" + id
            let names = Set(indexes.filter { $0.ddoc == ddoc }.map(\.name))
            guard !names.isEmpty else {
                fail.append(["id": .string(ddoc), "error": "not_found"])
                continue
            }
            try await removeViews(database, ddoc: ddoc) { names.contains($0) }
            success.append(["id": .string(ddoc), "ok": true])
        }
        try await dropUnused(database)
        return JSONResponse.ok(["success": .array(success), "fail": .array(fail)])
    }

    /// Removes the views `remove` picks; a design document left with nothing but
    /// its language is deleted (mango_idx:delete/4).
    private static func removeViews(_ database: Database, ddoc: String, _ remove: (String) -> Bool) async throws {
        guard let current = try await database.winner(id: ddoc), !current.isDeleted, let bytes = current.body,
              case .object(var document) = try JSONReader.parse(bytes) else { throw CouchError.notFound() }
        var views = document["views"]?.objectValue ?? JSONObject()
        views.removeAll { remove($0.key) }
        document["views"] = .object(views)
        let onlyLanguage = views.isEmpty && document.allSatisfy { $0.key == "language" || $0.key == "views" }
        try await save(database, id: ddoc, body: onlyLanguage ? .object([:]) : .object(document),
                       base: current, delete: onlyLanguage)
    }

    private static func save(_ database: Database, id: String, body: JSONValue, base: StoredRevision?,
                             delete: Bool = false) async throws {
        let update = DocumentUpdate(id: id, body: JSONWriter.serialize(body), isDeleted: delete,
                                    baseRevision: base.flatMap { $0.isDeleted ? nil : $0.rev })
        guard let result = try await database.update([update], newEdits: true).first else { return }
        if case .failure(let error) = result {
            let couch = CouchError(mapping: error)
            guard couch.status < 500 else { throw error }
            throw MangoError(couch.status, couch.error, couch.reason)
        }
    }

    /// Drops stored tables no index or view of the database uses any more.
    private static func dropUnused(_ database: Database) async throws {
        try await database.dropIndexes(keeping: try await ViewIndexes.liveSignatures(database))
    }

    /// CouchDB names an unnamed index by a SHA-1 of its definition (mango_idx:gen_name/2).
    private static func autoName(_ definition: JSONValue, type: String) -> String {
        let digest = Insecure.SHA1.hash(data: JSONWriter.serialize(["def": definition, "type": .string(type)]))
        return PasswordHash.hexString(digest)
    }

    private static func optionalString(_ value: JSONValue?) throws -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else {
            throw MangoError(400, "invalid_string", "Invalid string: \(JSONWriter.string(value))")
        }
        guard !text.isEmpty else {
            throw MangoError(400, "invalid_empty_string", "Index name or ddoc cannot be empty string")
        }
        return text
    }

    private static let listParametersError = CouchError(
        400, "invalid_list_index_params", "Index parameter ranges: limit > 1, skip > 0")
}
