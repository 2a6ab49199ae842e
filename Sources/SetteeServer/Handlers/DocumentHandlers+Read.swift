import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET /{db}/{docid}` with `rev`, `revs`, `revs_info`, `conflicts`,
/// `deleted_conflicts`, `open_revs`, `latest`, `local_seq`, `meta`
/// (CouchDB API Reference › Documents › GET /{db}/{docid}).
extension DocumentHandlers {
    static func get(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = context.parameters.docID ?? ""
        // An id that could never be stored is not found, as CouchDB reads it (404 "missing").
        guard (try? DocumentParser.validate(id: id)) != nil else { throw CouchError.notFound("missing") }
        try await UsersDatabaseReadRule.requireRead(id, context, database)
        context.node.stats.recordReads(1)
        // `open_revs=[]` is CouchDB's default (no open revs asked for): a plain read.
        if let openRevs = context.query["open_revs"], openRevs != "[]" {
            return try await OpenRevsHandler.get(context, database, id: id)
        }
        var revText = context.query["rev"]
        if context.query.flag("latest"), let text = revText, let document = try await database.document(
            id: id, revisions: .none), let rev = RevisionID(text) {
            revText = document.tree.latest(from: rev).first?.description ?? text
        }
        var options = try DocumentOptions(query: context.query)
        if options.revs { options.revsLimit = try await database.revsLimit() }
        let read = try await DocumentReader.read(database, id: id, rev: revText, needsTree: options.needsTree)
        let rev = read.revision.rev.description
        let etag = "\"" + rev + "\""
        if let notModified = EntityTag.notModified(context, etag) { return notModified }
        let mustStrip = try await ReplicatorReadRule.mustCheck(context, database)
        // (Stripped `_replicator` documents go as JSON: the multipart writer renders its own.)
        if options.attachments, !mustStrip, MultipartDocumentHandler.acceptsRelated(context.headers["Accept"]),
           !AttachmentJSON.toSend(read.tree, read.revision, attsSince: options.attsSince).isEmpty {
            return try await MultipartDocumentHandler.get(id: id, tree: read.tree, read.revision, database,
                                                          options: options, etag: etag)
        }
        let forms = options.attachments ? try await AttachmentJSON.inlineForms(
            database, read.tree, read.revision, attsSince: options.attsSince) : [:]
        var bytes = RevisionJSON.render(id: id, tree: read.tree, read.revision, rev: rev, options: options, forms: forms)
            .responseBody()
        if mustStrip { bytes = ReplicatorReadRule.shown(bytes, to: context.user) }
        return JSONResponse.make(status: 200, bytes: bytes, headers: ["ETag": etag])
    }
}

extension DocumentOptions {
    /// The flags as a request's query gives them.
    /// - Throws: 400 for an `atts_since` CouchDB refuses (`attsSince(_:)`).
    init(query: QueryOptions) throws {
        self.init()
        let meta = query.flag("meta")
        revs = query.flag("revs")
        revsInfo = query.flag("revs_info") || meta
        conflicts = query.flag("conflicts") || meta
        deletedConflicts = query.flag("deleted_conflicts") || meta
        localSeq = query.flag("local_seq") || meta
        attachments = query.flag("attachments")
        attEncodingInfo = query.flag("att_encoding_info")
        attsSince = try Self.attsSince(query)
    }

    /// `atts_since` as chttpd_db:parse_doc_query/1 reads it with couch_doc:parse_revs/1:
    /// JSON that does not parse is 400 "invalid UTF-8 JSON", a non-list "Invalid list of
    /// revisions", an entry that is no rev "Invalid rev format" (CouchDB 3.4.3 answers so;
    /// attachments_test.exs neighbourhood). They were ignored.
    static func attsSince(_ query: QueryOptions) throws -> [RevisionID] {
        guard let value = try query.json("atts_since") else { return [] }
        guard let list = value.arrayValue else { throw CouchError.badRequest("Invalid list of revisions") }
        return try list.map { item in
            guard let rev = item.stringValue.flatMap(RevisionID.init) else { throw CouchError.badRequest("Invalid rev format") }
            return rev
        }
    }
}
