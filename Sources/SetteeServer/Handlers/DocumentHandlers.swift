import SetteeDocuments
import Logging
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `/{db}/{docid}` writes: PUT, POST /{db}, DELETE, COPY
/// (CouchDB API Reference › Documents). Reads are in `DocumentHandlers+Read`.
enum DocumentHandlers {
    static func put(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = context.parameters.docID ?? ""
        let body = try await context.jsonBody()
        var object = try body.object(orThrow: "Document must be a JSON object")
        try mergeRevParameters(context, into: &object)
        let newEdits = try context.query.bool("new_edits", default: true)
        let parsed = try parser(context).parse(object, id: id, newEdits: newEdits, raw: rawMembers(body))
        if context.query["batch"] == "ok" { return await batched(context, parsed, database, newEdits: newEdits) }
        let rev = try await write(parsed, to: database, newEdits: newEdits, stats: context.node.stats)
        var response = created(context, id: id, rev: rev)
        // CouchDB answers a deletion by PUT as it answers DELETE: 200 (chttpd_db update_doc).
        if parsed.update.isDeleted { response.status = 200 }
        return response
    }

    static func post(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try MaintenanceHandlers.requireJSONContentType(context)
        let body = try await context.jsonBody()
        let object = try body.object(orThrow: "Document must be a JSON object")
        if let id = object["_id"]?.stringValue, id.hasPrefix("_local/") {
            var response = try await LocalDocHandlers.write(context, database, id: String(id.dropFirst(7)),
                                                            object: object)
            response.headers.add("Location", context.absoluteURL(
                "/" + CouchURLEncoding.encode(context.parameters.db ?? "") + "/" + CouchURLEncoding.encode(id)))
            return response
        }
        let parsed = try parser(context).parse(object, id: nil, newEdits: true, raw: rawMembers(body))
        if context.query["batch"] == "ok" { return await batched(context, parsed, database, newEdits: true) }
        let rev = try await write(parsed, to: database, newEdits: true, stats: context.node.stats)
        return created(context, id: parsed.update.id, rev: rev, withETag: false)
    }

    static func delete(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = context.parameters.docID ?? ""
        // CouchDB opens the document first (chttpd_db:db_doc_req/3): an id that could never
        // be stored is 404 "missing", with a rev or without.
        guard (try? DocumentParser.validate(id: id)) != nil else { throw CouchError.notFound("missing") }
        guard let revText = try context.requestedRev else {
            // No rev: 409 for a live document; for none, CouchDB's read error ("missing",
            // or "deleted" for a deleted one), as chttpd_db:db_doc_req/3 opens it first.
            guard let winner = try await database.winner(id: id) else { throw CouchError.notFound("missing") }
            throw winner.isDeleted ? CouchError.notFound("deleted") : CouchError.conflict
        }
        let rev = try DocumentParser.revision(.string(revText))
        let update = DocumentUpdate(id: id, body: Array("{}".utf8), isDeleted: true, baseRevision: rev)
        let newRev: RevisionID
        do {
            newRev = try await single(update, database, newEdits: true, stats: context.node.stats)
        } catch StoreError.conflict {
            // CouchDB: deleting a document that never existed is 404, a stale rev 409.
            let exists = try await database.document(id: id, revisions: .none) != nil
            throw exists ? CouchError.conflict : CouchError.notFound("missing")
        }
        return JSONResponse.make(status: WriteQuorum.status(200, context),
                                 ["ok": true, "id": .string(id), "rev": .string(newRev.description)],
                                 headers: ["ETag": "\"\(newRev)\""])
    }

    /// `COPY /{db}/{docid}` with `Destination: newid` or `newid?rev=R` (to overwrite).
    static func copy(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = context.parameters.docID ?? ""
        // An empty Destination is an empty id to CouchDB (illegal_docid), not a missing header.
        guard let destination = context.headers["Destination"] else {
            throw CouchError.badRequest("Destination header is mandatory for COPY.")
        }
        // chttpd_db:parse_copy_destination_header/1 refuses `^https?://` before anything else.
        if destination.hasPrefix("http://") || destination.hasPrefix("https://") {
            throw CouchError.badRequest("Destination URL must be relative.")
        }
        let (rawTarget, targetRev) = splitDestination(destination)
        // What cannot be percent-decoded is taken as written, as CouchDB takes it.
        let targetID = PercentDecoding.decode(rawTarget, plusAsSpace: false) ?? String(rawTarget)
        try DocumentParser.validate(id: targetID)
        let (body, sourceAttachments) = try await copySource(context, database, id: id)
        if targetID.hasPrefix("_local/") {
            // A local copy: the body only (local documents hold no attachments).
            let rev = try await database.putLocal(id: String(targetID.dropFirst("_local/".count)), body: body,
                                                  rev: targetRev, isDeleted: false)
            // With the ETag and Location of any COPY (the id's `/` encoded), as CouchDB 3.4.3.
            let path = "/" + CouchURLEncoding.encode(context.parameters.db ?? "") + "/" + CouchURLEncoding.encode(targetID)
            return JSONResponse.make(status: 201, ["ok": true, "id": .string(targetID), "rev": .string(rev)],
                                     headers: ["ETag": "\"\(rev)\"", "Location": context.absoluteURL(path)])
        }
        // The copy names the source's blobs; its attachments are new in the copy (revpos 0 → its generation).
        let attachments = sourceAttachments.map { attachment -> AttachmentUpdate in
            var copied = attachment
            copied.revpos = 0
            return .new(copied)
        }
        let update = DocumentUpdate(id: targetID, body: body, baseRevision: try targetRev.map {
            try DocumentParser.revision(.string($0))
        }, attachments: attachments)
        let rev = try await single(update, database, newEdits: true, stats: context.node.stats)
        return created(context, id: targetID, rev: rev)
    }

    /// What COPY copies: a document's body and attachments at `?rev=` or its winner,
    /// or a local document's body (CouchDB copies `_local/` sources too).
    private static func copySource(_ context: RequestContext, _ database: Database,
                                   id: String) async throws -> ([UInt8], [StoredAttachment]) {
        if id.hasPrefix("_local/") {
            guard let local = try await database.localDocument(id: String(id.dropFirst("_local/".count))) else {
                throw CouchError.notFound("missing")
            }
            return (local.body, [])
        }
        // The source's rev: `?rev=` or `If-Match`, as chttpd_db reads it for COPY.
        let source = try await DocumentReader.read(database, id: id, rev: try context.requestedRev)
        guard let body = source.body else { throw CouchError.notFound("missing") }
        return (body, source.revision.attachments)
    }

    /// `?batch=ok`: CouchDB answers 202 `{"ok":true,"id":..}` at once and writes in
    /// the background, dropping any error of the write (a conflict, a rejection).
    /// Settee writes before answering, so a 202 is as durable as a 201; the
    /// write's errors are dropped and logged as CouchDB's are.
    static func batched(_ context: RequestContext, _ parsed: DocumentParser.Parsed, _ database: Database,
                        newEdits: Bool) async -> HTTPResponse {
        do {
            _ = try await write(parsed, to: database, newEdits: newEdits, stats: context.node.stats)
        } catch {
            context.logger.debug("Batch doc error (\(parsed.update.id)): \(error)")
        }
        return JSONResponse.make(status: 202, ["ok": true, "id": .string(parsed.update.id)])
    }

    // MARK: Shared

    /// Where a one-document body's members are in its text, so that the stored body is
    /// copied from it rather than serialized again (as `_bulk_docs` does). The parser
    /// falls back to serializing when the object changed since (`?rev=` merged in).
    /// Nil when the text repeated a key: the object kept only the last member.
    static func rawMembers(_ body: JSONValueBody) -> DocumentParser.RawMembers? {
        let bytes = body.bytes
        guard !body.hadDuplicateKeys else { return nil }
        return bytes.withUnsafeBufferPointer { JSONSpanScanner.members(ofObjectIn: $0) }
            .map { DocumentParser.RawMembers(text: bytes, spans: $0) }
    }

    static func parser(_ context: RequestContext) -> DocumentParser {
        var parser = DocumentParser(maxDocumentSize: context.node.live.maxDocumentSize.value)
        parser.newID = context.node.live.uuids.next
        return parser
    }

    /// `?rev=` and `If-Match` stand in for `_rev`. As `chttpd_db:couch_doc_from_req`
    /// checks them: a `?rev=` other than the body's `_rev` is one error, an `If-Match`
    /// other than the rev the body or query names is another.
    static func mergeRevParameters(_ context: RequestContext, into object: inout JSONObject) throws {
        let queryRev = context.query["rev"]
        let bodyRev = object["_rev"]?.stringValue
        if let queryRev, let bodyRev, queryRev != bodyRev {
            throw CouchError.badRequest("Document rev from request body and query string have different values")
        }
        let explicitRev = bodyRev ?? queryRev
        let etagRev = context.headers["If-Match"].map(unquote)
        if let explicitRev, let etagRev, explicitRev != etagRev {
            throw CouchError.badRequest("Document rev and etag have different values")
        }
        if let rev = explicitRev ?? etagRev { object["_rev"] = .string(rev) }
    }

    /// Stores inline attachments first, then the revision naming them.
    static func write(_ parsed: DocumentParser.Parsed, to database: Database, newEdits: Bool,
                      stats: NodeStats) async throws -> RevisionID {
        var update = parsed.update
        update.attachments = try await AttachmentParser.updates(AttachmentParser.entries(parsed.attachments),
                                                                database, newEdits: newEdits)
        return try await single(update, database, newEdits: newEdits, stats: stats)
    }

    /// Writes one document; counted in `_stats` (`database_writes`, `document_writes`,
    /// and `document_inserts` for a new one).
    static func single(_ update: DocumentUpdate, _ database: Database, newEdits: Bool,
                       stats: NodeStats) async throws -> RevisionID {
        guard let result = try await database.update([update], newEdits: newEdits).first else {
            throw CouchError(500, "internal_server_error", "The store returned no result")
        }
        switch result {
        case .success(let rev):
            stats.recordWrite(documents: 1, inserted: newEdits && update.baseRevision == nil ? 1 : 0)
            return rev
        case .failure(let error): throw error
        }
    }

    /// 201 with the new rev and the document's absolute `Location`, and the rev
    /// as `ETag` where CouchDB sends one: on PUT and COPY, not on `POST /{db}` nor
    /// on an attachment's PUT, whose `Location` is the attachment's.
    static func created(_ context: RequestContext, id: String, rev: RevisionID,
                        attachment: String? = nil, withETag: Bool = true) -> HTTPResponse {
        let db = context.parameters.db ?? ""
        var path = "/" + CouchURLEncoding.encode(db) + "/" + CouchURLEncoding.encode(id)
        var headers: HTTPHeaders = withETag && attachment == nil ? ["ETag": "\"\(rev)\""] : [:]
        if let attachment {
            // chttpd_db's attachment PUT leaves the database name as it is.
            path = "/" + db + "/" + CouchURLEncoding.encode(id) + "/" + CouchURLEncoding.encode(attachment)
        }
        headers.add("Location", context.absoluteURL(path))
        return JSONResponse.make(status: WriteQuorum.status(201, context),
                                 ["ok": true, "id": .string(id), "rev": .string(rev.description)], headers: headers)
    }

    static func unquote(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }

    private static func splitDestination(_ header: String) -> (String, String?) {
        guard let q = header.firstIndex(of: "?") else { return (header, nil) }
        let query = header[header.index(after: q)...]
        // chttpd_db:parse_copy_destination_header/1 takes what follows `=`, whatever the key.
        let rev = query.firstIndex(of: "=").map { String(query[query.index(after: $0)...]) }
        return (String(header[..<q]), rev)
    }
}
