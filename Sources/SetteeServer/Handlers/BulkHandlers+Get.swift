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
    /// item's id and rev are read from its JSON, and the rev parsed, once; the items and
    /// their reads are matched by position, with no dictionary between them (building
    /// one, and the tuples copied into it, were a tenth of a replication source's CPU).
    private static func bulkGetItems(_ docs: [JSONValue], options: DocumentOptions, latest: Bool,
                                     _ context: RequestContext, _ database: Database) async throws -> [BulkGetItem] {
        // Only `_users` read by a non-admin has documents a reader may not see.
        let checksReader = UsersDatabaseReadRule.isUsersDatabase(database, context) && !context.user.isAdmin
        var asked: [BulkGetAsk] = []
        asked.reserveCapacity(docs.count)
        var lookups: [(id: String, revisions: RevisionSelection)] = []
        lookups.reserveCapacity(docs.count)
        for item in docs {
            let ask = try await BulkGetAsk(item, checksReader: checksReader, context, database)
            if case .lookUp(let id, _, let rev) = ask {
                lookups.append((id, rev.map { RevisionSelection.revision($0) } ?? .allLeaves))
            }
            asked.append(ask)
        }
        var read = try await database.documents(lookups).makeIterator()
        var items: [BulkGetItem] = []
        items.reserveCapacity(docs.count)
        for (item, ask) in zip(docs, asked) {
            guard case .lookUp(let id, let revText, let rev) = ask else {
                if case .refused(let refusal) = ask { items.append(refusal) }
                continue
            }
            let document = read.next() ?? nil
            var itemOptions = options
            let since = item["atts_since"]?.arrayValue ?? []
            itemOptions.attsSince = since.compactMap { $0.stringValue.flatMap(RevisionID.init) }
            let revisions = try await lookUp(document, id: id, requested: rev, latest: latest, database: database)
            items.append(BulkGetItem(id: .string(id), options: itemOptions, outcome: revisions.isEmpty
                ? .failed(["id": .string(id), "rev": .string(revText ?? "undefined"), "error": "not_found",
                           "reason": "missing"])
                : .found(revisions)))
        }
        return items
    }

    /// CouchDB's answer to an item without an id, or with a rev that is no revision
    /// (chttpd_db:bulk_get_open_doc_revs/2, checked on CouchDB 3.4.3); nil for the others.
    static func itemRefusal(_ item: JSONValue, rev parsed: RevisionID?) -> JSONObject? {
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
        guard let document else { return [] }
        var found: [(StoredDocument, StoredRevision)] = []
        if let requested, latest, !document.tree.isLeaf(requested) {
            let leaves = document.tree.latest(from: requested)
            if let withLeaves = try await database.document(id: id, revs: leaves) {
                found = withLeaves.revisions.filter { $0.body != nil }.map { (withLeaves, $0) }
            }
        } else {
            found.reserveCapacity(document.revisions.count)
            for revision in document.revisions where revision.body != nil { found.append((document, revision)) }
        }
        if found.count > 1 { found.sort { $0.1.rev < $1.1.rev } }
        return found
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

/// One `_bulk_get` item as read from the request: refused without a read, or what to look up.
private enum BulkGetAsk {
    case refused(BulkGetItem)
    /// `revText` as the item gave it (for the `not_found` answer), `rev` parsed from it.
    case lookUp(id: String, revText: String?, rev: RevisionID?)

    /// Refused: an item without an id, with a rev that is no revision or an id that is no
    /// string, and a `_users` document the reader may not see (`checksReader`: `_users`
    /// read by a non-admin). The others are looked up.
    init(_ item: JSONValue, checksReader: Bool, _ context: RequestContext, _ database: Database) async throws {
        let revText = item["rev"]?.stringValue
        let rev = revText.flatMap(RevisionID.init)
        if let refusal = BulkHandlers.itemRefusal(item, rev: rev) {
            self = .refused(BulkGetItem(id: item["id"] ?? .null, outcome: .failed(refusal)))
        } else if let id = item["id"]?.stringValue {
            if checksReader, !(try await UsersDatabaseReadRule.mayRead(id, context, database)) {
                self = .refused(BulkGetItem(id: .string(id), outcome: .failed(["id": .string(id),
                    "rev": item["rev"] ?? "undefined", "error": "not_found", "reason": "missing"])))
            } else {
                self = .lookUp(id: id, revText: revText, rev: rev)
            }
        } else {
            self = .refused(BulkGetItem(id: item["id"] ?? .null, outcome: .failed(["id": item["id"] ?? .null,
                "rev": item["rev"] ?? .null, "error": "illegal_docid", "reason": "Document id must be a string"])))
        }
    }
}
