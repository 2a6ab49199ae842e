import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET /{db}/{docid}?open_revs=all|[..]`: several revisions at once, as
/// CouchDB's replicator fetches them. With `Accept: application/json` a JSON
/// array of `{"ok":doc}` / `{"missing":rev}`; otherwise `multipart/mixed`
/// with one part per found revision (spec/couchdb.md "Checked on CouchDB 3.4.3").
enum OpenRevsHandler {
    static func get(_ context: RequestContext, _ database: Database, id: String) async throws -> HTTPResponse {
        let entries = try await revisions(context, database, id: id)
        var options = try DocumentOptions(query: context.query)
        options.revs = context.query.flag("revs")
        if options.revs { options.revsLimit = try await database.revsLimit() }
        // `_replicator` shows another user's document without credentials, here as in a GET.
        let reader = try await ReplicatorReadRule.mustCheck(context, database) ? context.user : nil
        let accept = context.headers["Accept"] ?? "*/*"
        if accept.contains("application/json") && !accept.contains("multipart/mixed") {
            return JSONResponse.make(status: 200, bytes: try await jsonArray(entries, options: options, database,
                                                                             strippingFor: reader))
        }
        // Multipart parts carry every attachment newer than atts_since, still encoded
        // (chttpd_db send_docs_multipart: `[attachments, follows, att_encoding_info]`).
        options.attEncodingInfo = true
        return multipartMixed(entries, options: options, database, strippingFor: reader)
    }

    enum Entry {
        case found(StoredDocument, StoredRevision)
        case missing(RevisionID)
    }

    /// The requested revisions, `latest` applied (all leaves for `all`), in CouchDB's
    /// order: found revisions, then missing ones, each by generation and then suffix,
    /// once each. CouchDB sorts the replies (fabric_doc_open_revs.erl
    /// `tree_format_replies` and `dict_format_replies`, an orddict: its eunit cases
    /// expect `[bar1(), foo1(), bazNF()]` for the revs foo, bar, baz).
    static func revisions(_ context: RequestContext, _ database: Database, id: String) async throws -> [Entry] {
        try await requested(context, database, id: id).sorted { a, b in
            switch (a, b) {
            case (.found(_, let x), .found(_, let y)): x.rev < y.rev
            case (.missing(let x), .missing(let y)): x < y
            case (.found, .missing): true
            case (.missing, .found): false
            }
        }
    }

    private static func requested(_ context: RequestContext, _ database: Database, id: String) async throws -> [Entry] {
        let openRevs = context.query["open_revs"] ?? ""
        let latest = context.query.flag("latest")
        if openRevs == "all" {
            guard let document = try await database.document(id: id, revisions: .allLeaves) else {
                throw CouchError.notFound("missing")
            }
            return document.revisions.map { .found(document, $0) }
        }
        guard let list = try context.query.json("open_revs")?.arrayValue else {
            throw CouchError.badRequest("Invalid open_revs")
        }
        let texts = try list.map { value -> String in
            guard let text = value.stringValue else { throw CouchError.badRequest("Invalid rev format") }
            return text
        }
        let revs = texts.compactMap(RevisionID.init)
        guard revs.count == texts.count else { throw CouchError.badRequest("Invalid rev format") }
        guard let tree = try await database.document(id: id, revisions: .none)?.tree else {
            return Set(revs).map { .missing($0) }
        }
        var wanted: [RevisionID] = []
        for rev in revs {
            let chosen = latest ? tree.latest(from: rev) : [rev]
            for r in (chosen.isEmpty ? [rev] : chosen) where !wanted.contains(r) { wanted.append(r) }
        }
        guard let document = try await database.document(id: id, revs: wanted) else {
            return wanted.map { .missing($0) }
        }
        return wanted.map { rev in
            document.revisions.first { $0.rev == rev && $0.body != nil }.map { .found(document, $0) } ?? .missing(rev)
        }
    }

    static func jsonArray(_ entries: [Entry], options: DocumentOptions, _ database: Database,
                          strippingFor reader: UserContext? = nil) async throws -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, entry) in entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            switch entry {
            case .found(let document, let revision):
                let forms = options.attachments ? try await AttachmentJSON.inlineForms(
                    database, document.tree, revision, attsSince: options.attsSince) : [:]
                out.append(contentsOf: #"{"ok":"#.utf8)
                let json = RevisionJSON.render(document, revision, options: options, forms: forms).serialize()
                out.append(contentsOf: reader.map { ReplicatorReadRule.shown(json, to: $0) } ?? json)
                out.append(UInt8(ascii: "}"))
            case .missing(let rev):
                out.append(contentsOf: #"{"missing":"#.utf8)
                JSONWriter.writeString(rev.description, to: &out)
                out.append(UInt8(ascii: "}"))
            }
        }
        out.append(contentsOf: "]\n".utf8)
        return out
    }

    /// One part per entry: `multipart/related` (JSON, then attachment parts) for a
    /// revision with attachments to send, `application/json` otherwise (pull
    /// transcript lines 7 and 10). Attachment bytes stream from their blobs.
    static func multipartMixed(_ entries: [Entry], options: DocumentOptions, _ database: Database,
                               strippingFor reader: UserContext? = nil) -> HTTPResponse {
        let boundary = MultipartWriter.randomBoundary()
        let headers: HTTPHeaders = ["Content-Type": "multipart/mixed; boundary=\"\(boundary)\""]
        return HTTPResponse(status: 200, headers: headers, body: .stream { writer in
            let sink: MultipartWriter.Sink = { try await writer.write($0) }
            guard !entries.isEmpty else { return try await sink(Array("--\(boundary)--".utf8)) }
            var mixed = MultipartWriter(boundary: boundary, subtype: .mixed, sink: sink)
            for entry in entries {
                try await writePart(entry, to: &mixed, sink: sink, options: options, database, strippingFor: reader)
            }
            try await mixed.finish()
        })
    }

    /// A nested writer shares `sink`: the inner body is the outer part's body.
    private static func writePart(_ entry: Entry, to mixed: inout MultipartWriter, sink: @escaping MultipartWriter.Sink,
                                  options: DocumentOptions, _ database: Database,
                                  strippingFor reader: UserContext?) async throws {
        switch entry {
        case .found(let document, let revision):
            let sending = AttachmentJSON.toSend(document.tree, revision, attsSince: options.attsSince)
            var json = RevisionJSON.render(document, revision, options: options,
                                           forms: MultipartDocumentHandler.followsForms(sending)).serialize()
            if let reader { json = ReplicatorReadRule.shown(json, to: reader) }
            guard !sending.isEmpty else { return try await mixed.writeJSONPart(json) }
            var related = MultipartWriter(subtype: .related, sink: sink)
            try await mixed.beginPart([("Content-Type", related.contentType)])
            try await MultipartDocumentHandler.writeDocument(&related, json: json, attachments: sending, database)
            try await related.finish()
            try await mixed.endPart()
        case .missing(let rev):
            try await mixed.writePart(headers: [("Content-Type", "application/json; error=\"true\"")],
                                      body: JSONWriter.serialize(["missing": .string(rev.description)]))
        }
    }
}
