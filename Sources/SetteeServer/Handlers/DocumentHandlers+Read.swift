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
        if let redirect = DesignDocRedirect.response(context) { return redirect }
        try DocumentParser.validate(id: id)
        // `open_revs=[]` is CouchDB's default (no open revs asked for): a plain read.
        if let openRevs = context.query["open_revs"], openRevs != "[]" {
            return try await OpenRevsHandler.get(context, database, id: id)
        }
        var revText = context.query["rev"]
        if context.query.flag("latest"), let text = revText, let document = try await database.document(
            id: id, revisions: .none), let rev = RevisionID(text) {
            revText = document.tree.latest(from: rev).first?.description ?? text
        }
        let options = DocumentOptions(query: context.query)
        let read = try await DocumentReader.read(database, id: id, rev: revText, needsTree: options.needsTree)
        let rev = read.revision.rev.description
        let etag = "\"" + rev + "\""
        if let ifNoneMatch = context.headers["If-None-Match"], ifNoneMatch == etag {
            return HTTPResponse(status: 304, headers: ["ETag": etag])
        }
        if options.attachments, MultipartDocumentHandler.acceptsRelated(context.headers["Accept"]),
           !AttachmentJSON.toSend(read.tree, read.revision, attsSince: options.attsSince).isEmpty {
            return try await MultipartDocumentHandler.get(id: id, tree: read.tree, read.revision, database,
                                                          options: options, etag: etag)
        }
        let forms = options.attachments ? try await AttachmentJSON.inlineForms(
            database, read.tree, read.revision, attsSince: options.attsSince) : [:]
        let bytes = render(id: id, tree: read.tree, read.revision, rev: rev, options: options, forms: forms)
            .responseBody()
        return JSONResponse.make(status: 200, bytes: bytes, headers: ["ETag": etag])
    }

    /// `render(id:tree:...)` for a document read with its tree.
    static func render(_ document: StoredDocument, _ revision: StoredRevision, options: DocumentOptions,
                       forms: [String: AttachmentJSON.Form] = [:]) -> DocumentWriter {
        render(id: document.id, tree: document.tree, revision, options: options, forms: forms)
    }

    /// The JSON of one revision with the meta fields `options` ask for.
    /// Attachments not in `forms` are stubs. `rev` is the revision id as text when
    /// the caller has formatted it already (for the ETag). `tree` may be nil only
    /// when `options` need none (`DocumentOptions.needsTree`).
    static func render(id: String, tree: RevisionTree?, _ revision: StoredRevision, rev: String? = nil,
                       options: DocumentOptions, forms: [String: AttachmentJSON.Form] = [:]) -> DocumentWriter {
        precondition(tree != nil || !options.needsTree, "options that need the revision tree were read without it")
        var writer = DocumentWriter(id: id, rev: rev ?? revision.rev.description,
                                    body: revision.body ?? Array("{}".utf8))
        writer.isDeleted = revision.isDeleted
        let tree = tree ?? RevisionTree()
        if options.revs {
            let history = tree.history(of: revision.rev)
            writer.append("_revisions", ["start": .int(revision.rev.generation),
                                         "ids": .array(history.map { .string($0.suffix) })])
        }
        if options.revsInfo {
            let info = tree.history(of: revision.rev).map { rev -> JSONValue in
                let node = tree.node(rev)
                let status = node.map { $0.isDeleted ? "deleted" : ($0.hasBody ? "available" : "missing") } ?? "missing"
                return ["rev": .string(rev.description), "status": .string(status)]
            }
            writer.append("_revs_info", .array(info))
        }
        if options.conflicts, !tree.conflicts.isEmpty {
            writer.append("_conflicts", .array(tree.conflicts.map { .string($0.description) }))
        }
        if options.deletedConflicts, !tree.deletedConflicts.isEmpty {
            writer.append("_deleted_conflicts", .array(tree.deletedConflicts.map { .string($0.description) }))
        }
        if options.localSeq { writer.append("_local_seq", .number(JSONNumber(revision.sequence))) }
        if !revision.attachments.isEmpty {
            writer.append("_attachments", AttachmentJSON.object(revision.attachments, forms: forms,
                                                                showEncoding: options.attEncodingInfo))
        }
        return writer
    }
}

/// The read flags of a document request. CouchDB turns a flag on only for
/// exactly `true`; `meta=true` means conflicts, deleted_conflicts, revs_info and local_seq.
struct DocumentOptions {
    var revs = false
    var revsInfo = false
    var conflicts = false
    var deletedConflicts = false
    var localSeq = false
    /// `attachments=true`: send attachment bytes (inline, or multipart parts).
    var attachments = false
    var attEncodingInfo = false
    /// `atts_since`: send only attachments newer than these revisions.
    var attsSince: [RevisionID] = []

    init() {}

    /// Whether these options read the revision tree (history, leaves, `atts_since`);
    /// without them the winner can be read alone.
    var needsTree: Bool { revs || revsInfo || conflicts || deletedConflicts || !attsSince.isEmpty }

    init(query: QueryOptions) {
        let meta = query.flag("meta")
        revs = query.flag("revs")
        revsInfo = query.flag("revs_info") || meta
        conflicts = query.flag("conflicts") || meta
        deletedConflicts = query.flag("deleted_conflicts") || meta
        localSeq = query.flag("local_seq") || meta
        attachments = query.flag("attachments")
        attEncodingInfo = query.flag("att_encoding_info")
        attsSince = AttachmentJSON.attsSince(try? query.json("atts_since"))
    }
}
