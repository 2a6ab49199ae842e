import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_bulk_get`: the revisions asked for, read together.
extension BulkHandlers {
    static func bulkGet(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let body = try await context.jsonBody().object()
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("Missing JSON list of 'docs'.") }
        context.node.stats.recordReads(docs.count)
        var options = try DocumentOptions(query: context.query)
        // As document reads: only exactly `true` (chttpd_db:db_req/2 `_bulk_get`, parse_doc_query/1).
        options.revs = context.query.flag("revs")
        // `_revisions` cut to `_revs_limit`, as a document GET (couch_db:make_doc/5).
        if options.revs { options.revsLimit = try await database.revsLimit() }
        let latest = context.query.flag("latest")
        let strip = try await ReplicatorReadRule.mustCheck(context, database) ? context.user : nil
        let items = try await bulkGetItems(docs, options: options, latest: latest, context, database)
        if BulkGetMultipart.isWanted(accept: context.headers["Accept"]) {
            return BulkGetMultipart.response(items, database, strippingFor: strip)
        }
        var out: [UInt8] = Array(#"{"results":["#.utf8)
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"id":"#.utf8)
            JSONWriter.write(item.id, to: &out)
            out.append(contentsOf: #","docs":["#.utf8)
            switch item.outcome {
            case .failed(let error): out.append(contentsOf: JSONWriter.serialize(["error": .object(error)]))
            case .found(let found):
                try await writeDocs(found, options: item.options, database: database, strippingFor: strip, to: &out)
            }
            out.append(contentsOf: "]}".utf8)
        }
        out.append(contentsOf: "]}\n".utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }

    /// What each `_bulk_get` item finds, or why it finds nothing, in the items' order. The
    /// documents are read together, in one trip to a reader (`Database.documents`). Each
    /// item's id and rev are read from its JSON, and the rev parsed, once.
    private static func bulkGetItems(_ docs: [JSONValue], options: DocumentOptions, latest: Bool,
                                     _ context: RequestContext, _ database: Database) async throws -> [BulkGetItem] {
        var refused: [Int: BulkGetItem] = [:]
        var asked: [(index: Int, id: String, revText: String?, rev: RevisionID?)] = []
        for (index, item) in docs.enumerated() {
            let revText = item["rev"]?.stringValue
            let rev = revText.flatMap(RevisionID.init)
            if let refusal = try await bulkGetRefusal(item, rev: rev, context, database) {
                refused[index] = refusal
            } else if let id = item["id"]?.stringValue {
                asked.append((index, id, revText, rev))
            }
        }
        let lookups = asked.map { (id: $0.id, revisions: $0.rev.map { RevisionSelection.revision($0) } ?? .allLeaves) }
        var found: [Int: (id: String, revText: String?, rev: RevisionID?, document: StoredDocument?)] = [:]
        for (item, document) in zip(asked, try await database.documents(lookups)) {
            found[item.index] = (item.id, item.revText, item.rev, document)
        }
        var items: [BulkGetItem] = []
        items.reserveCapacity(docs.count)
        for (index, item) in docs.enumerated() {
            if let refusal = refused[index] { items.append(refusal); continue }
            let read = found[index]
            let id = read?.id ?? item["id"]?.stringValue ?? ""
            var itemOptions = options
            itemOptions.attsSince = (item["atts_since"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(RevisionID.init) }
            let revisions = try await lookUp(read?.document, id: id, requested: read?.rev, latest: latest,
                                             database: database)
            items.append(BulkGetItem(id: .string(id), options: itemOptions, outcome: revisions.isEmpty
                ? .failed(["id": .string(id), "rev": .string(read?.revText ?? "undefined"), "error": "not_found",
                           "reason": "missing"])
                : .found(revisions)))
        }
        return items
    }

    /// Why a `_bulk_get` item gets an error without a read: no id, a malformed rev, an id
    /// that is no string, a `_users` document the reader may not see. Nil for the others.
    /// `rev` is the item's rev, parsed (nil when absent or no revision).
    private static func bulkGetRefusal(_ item: JSONValue, rev: RevisionID?, _ context: RequestContext,
                                       _ database: Database) async throws -> BulkGetItem? {
        if let refusal = itemRefusal(item, rev: rev) { return BulkGetItem(id: item["id"] ?? .null, outcome: .failed(refusal)) }
        guard let id = item["id"]?.stringValue else {
            return BulkGetItem(id: item["id"] ?? .null, outcome: .failed(["id": item["id"] ?? .null,
                "rev": item["rev"] ?? .null, "error": "illegal_docid", "reason": "Document id must be a string"]))
        }
        guard try await UsersDatabaseReadRule.mayRead(id, context, database) else {
            return BulkGetItem(id: .string(id), outcome: .failed(["id": .string(id),
                "rev": item["rev"] ?? "undefined", "error": "not_found", "reason": "missing"]))
        }
        return nil
    }

    /// CouchDB's answer to an item without an id, or with a rev that is no revision
    /// (chttpd_db:bulk_get_open_doc_revs/2, checked on CouchDB 3.4.3); nil for the others.
    private static func itemRefusal(_ item: JSONValue, rev parsed: RevisionID?) -> JSONObject? {
        if item["id"] == nil || item["id"] == .null {
            return ["id": .null, "rev": .null, "error": "bad_request", "reason": "document id missed"]
        }
        if parsed == nil, let rev = item["rev"], rev != .null {
            return ["id": item["id"] ?? .null, "rev": rev, "error": "bad_request", "reason": "Invalid rev format"]
        }
        return nil
    }

    /// The revisions a `_bulk_get` item asks for, with bodies: `rev` (or the leaves that
    /// replaced it, `latest`), every leaf without one (as `open_revs=all`, chttpd_db
    /// bulk_get); by generation, then suffix, as CouchDB sorts open_revs replies
    /// (`OpenRevsHandler.revisions`). Empty when there is none.
    /// `document` is what `Database.documents` read for the item (`rev`, or every leaf).
    private static func lookUp(_ document: StoredDocument?, id: String, requested: RevisionID?, latest: Bool,
                               database: Database) async throws -> [(StoredDocument, StoredRevision)] {
        var found: [(StoredDocument, StoredRevision)] = []
        if let document {
            if let requested, latest, !document.tree.isLeaf(requested) {
                let leaves = document.tree.latest(from: requested)
                if let withLeaves = try await database.document(id: id, revs: leaves) {
                    found = withLeaves.revisions.filter { $0.body != nil }.map { (withLeaves, $0) }
                }
            } else {
                found = document.revisions.filter { $0.body != nil }.map { (document, $0) }
            }
        }
        return found.sorted { $0.1.rev < $1.1.rev }
    }

    /// - Parameter strippingFor: a `_replicator` reader who sees others' documents without credentials.
    private static func writeDocs(_ found: [(StoredDocument, StoredRevision)], options: DocumentOptions,
                                  database: Database, strippingFor reader: UserContext?, to out: inout [UInt8]) async throws {
        for (i, (document, revision)) in found.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            // JSON: `attachments=true` inlines `data` (chttpd_db bulk_get, non-multipart).
            let forms = options.attachments ? try await AttachmentJSON.inlineForms(
                database, document.tree, revision, attsSince: options.attsSince) : [:]
            out.append(contentsOf: #"{"ok":"#.utf8)
            let rendered = RevisionJSON.render(document, revision, options: options, forms: forms)
            if let reader {
                var json: [UInt8] = []
                rendered.write(to: &json)
                out.append(contentsOf: ReplicatorReadRule.shown(json, to: reader))
            } else {
                rendered.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
