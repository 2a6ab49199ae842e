internal import SetteeReplicator
internal import FoundationEssentials
import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/{docid}` with an HTML form (`multipart/form-data`): uploads files
/// as attachments of a document, as CouchDB's `chttpd_db:db_doc_req` POST does.
///
/// The form names its base with a `_rev` field (that revision's body and
/// attachments are kept) or gives a whole `_doc` as JSON; each `_attachments` file
/// becomes an attachment named by its file name, replacing one of that name.
/// Browsers are held to their own origin: a `Referer` whose host is not this
/// request's host is refused (`couch_httpd:validate_referer`), so a page elsewhere
/// cannot post into a database with the visitor's cookie.
enum FormUploadHandler {
    static func post(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try checkReferer(context)
        let id = context.parameters.docID ?? ""
        try DocumentParser.validate(id: id)
        let contentType = context.headers["Content-Type"] ?? ""
        guard contentType.split(separator: ";").first?.trimmingBlanks().lowercased()
                == "multipart/form-data",
              let boundary = MultipartReader.boundary(fromContentType: contentType) else {
            throw CouchError(415, "bad_content_type", "Content-Type must be multipart/form-data")
        }
        let form = try await FormReader.read(context, database, boundary: boundary)
        let uploaded = Set(form.files.map(\.name))
        var update: DocumentUpdate
        var kept: [AttachmentUpdate]
        if let json = form.fields["_doc"] {
            var object = try JSONValueBody(bytes: Array(json.utf8), maxDepth: context.node.configuration.maxJSONDepth)
                .object(orThrow: "Document must be a JSON object")
            try DocumentHandlers.mergeRevParameters(context, into: &object)
            let parsed = try DocumentHandlers.parser(context).parse(object, id: id, newEdits: true)
            update = parsed.update
            kept = try await AttachmentParser.updates(AttachmentParser.entries(parsed.attachments), database,
                                                      newEdits: true)
        } else {
            guard let text = form.fields["_rev"], let rev = RevisionID(text) else {
                throw CouchError.badRequest("Invalid rev format")
            }
            let base = try await DocumentReader.read(database, id: id, rev: rev.description)
            update = DocumentUpdate(id: id, body: base.body ?? Array("{}".utf8), baseRevision: rev)
            kept = base.revision.attachments.map { .stub(name: $0.name, digest: $0.digest) }
        }
        update.attachments = form.files.map { .new($0) } + kept.filter { !uploaded.contains($0.name) }
        let rev = try await DocumentHandlers.single(update, database, newEdits: true, stats: context.node.stats)
        return JSONResponse.make(status: 201, ["ok": true, "id": .string(id), "rev": .string(rev.description)],
                                 headers: ["ETag": "\"\(rev)\""])
    }

    /// A `Referer` is required and its host (with port) must be this request's.
    static func checkReferer(_ context: RequestContext) throws {
        guard let referer = context.headers["Referer"] else { throw CouchError.badRequest("Referer header required.") }
        let host = context.headers[context.node.live.forwardedHostHeader.value] ?? context.headers["Host"] ?? ""
        let refererHost = URLComponents(string: referer).map { components in
            (components.host ?? "") + (components.port.map { ":\($0)" } ?? "")
        }
        guard refererHost == host else { throw CouchError.badRequest("Referer header must match host.") }
    }
}

/// The fields and files of a `multipart/form-data` body: fields kept as text (the
/// form's own parts, bounded), files streamed into attachment blobs.
struct FormReader {
    var fields: [String: String] = [:]
    var files: [StoredAttachment] = []

    static func read(_ context: RequestContext, _ database: Database, boundary: String) async throws -> FormReader {
        var form = FormReader()
        let maxFieldBytes = context.node.live.maxDocumentSize.value * 2 + 65_536
        var reader = MultipartReader(boundary: boundary)
        var field: (name: String, bytes: [UInt8])?
        var file: (name: String, contentType: String, upload: AttachmentUpload)?
        do {
            while let chunk = try await context.request.body.next() {
                for event in try reader.feed(chunk) {
                    switch event {
                    case .headers(let headers):
                        let disposition = Disposition(headers["Content-Disposition"] ?? "")
                        if disposition.name == "_attachments", let name = disposition.filename, !name.isEmpty {
                            try AttachmentParser.validate(name: name)
                            let type = headers["Content-Type"] ?? "application/octet-stream"
                            file = (name, type, try await database.makeAttachmentUpload(contentType: type))
                        } else {
                            field = (disposition.name ?? "", [])
                        }
                    case .body(let bytes):
                        if let upload = file?.upload {
                            try await upload.write(bytes)
                        } else if field != nil {
                            guard (field?.bytes.count ?? 0) + bytes.count <= maxFieldBytes else {
                                throw CouchError(413, "document_too_large", "Document exceeds max_document_size")
                            }
                            field?.bytes += bytes
                        }
                    case .partEnd:
                        if let current = file {
                            file = nil
                            form.files.append(try await current.upload.finish(name: current.name,
                                                                              contentType: current.contentType))
                        } else if let current = field {
                            field = nil
                            form.fields[current.name] = String(decoding: current.bytes, as: UTF8.self)
                        }
                    case .end:
                        break
                    }
                }
            }
            try reader.finish()
        } catch let error as MultipartError {
            await file?.upload.abort()
            throw CouchError.badRequest(MultipartDocumentHandler.reason(error))
        } catch {
            await file?.upload.abort()
            throw error
        }
        return form
    }

    /// `Content-Disposition: form-data; name="x"; filename="y"` (RFC 7578 §4.2).
    struct Disposition {
        var name: String?
        var filename: String?

        init(_ header: String) {
            for parameter in header.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                let key = pair[0].trimmingBlanks().lowercased()
                var value = pair[1].trimmingBlanks()
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                if key == "name" { name = value }
                if key == "filename" { filename = value }
            }
        }
    }
}
