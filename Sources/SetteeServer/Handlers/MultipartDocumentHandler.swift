import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// Documents with their attachments as `multipart/related`: `PUT /{db}/{docid}`
/// uploads (the replicator's `new_edits=false` writes) and `GET ?attachments=true`
/// answers (API reference /{db}/{docid}, "Efficient Multiple Attachments Retrieving").
/// Attachment bytes stream through in both directions.
enum MultipartDocumentHandler {
    /// Whether `Accept` lets us answer `multipart/related`: CouchDB does for `*/*`
    /// and for no Accept at all (spec/couchdb.md "Checked on CouchDB 3.4.3").
    static func acceptsRelated(_ accept: String?) -> Bool {
        guard let accept else { return true }
        return accept.contains("multipart/related") || accept.contains("multipart/*") || accept.contains("*/*")
    }

    static func put(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let id = context.parameters.docID ?? ""
        guard let boundary = MultipartReader.boundary(fromContentType: context.headers["Content-Type"] ?? "") else {
            throw CouchError.badRequest("Missing multipart boundary")  // the route chose this handler by it
        }
        let newEdits = try context.query.bool("new_edits", default: true)
        let upload = MultipartDocumentUpload(
            database: database, maxJSONBytes: context.node.live.maxDocumentSize.value * 2 + 65536
        ) { bytes in
            let body = try JSONValueBody(bytes: bytes, maxDepth: context.node.configuration.maxJSONDepth)
            var object = try body.object(orThrow: "Document must be a JSON object")
            try DocumentHandlers.mergeRevParameters(context, into: &object)
            return try DocumentHandlers.parser(context).parse(object, id: id, newEdits: newEdits,
                                                             raw: DocumentHandlers.rawMembers(body))
        }
        var reader = MultipartReader(boundary: boundary)
        do {
            while let chunk = try await context.request.body.next() {
                for event in try reader.feed(chunk) { try await upload.handle(event) }
            }
            try reader.finish()
        } catch let error as MultipartError {
            await upload.abort()
            throw CouchError.badRequest(reason(error))
        } catch {
            await upload.abort()
            throw error
        }
        guard upload.isComplete, let parsed = upload.parsed else {
            throw CouchError.badRequest("Missing attachment data in multipart request")
        }
        var update = parsed.update
        update.attachments = try await AttachmentParser.updates(upload.entries, database, newEdits: newEdits,
                                                                followed: upload.stored)
        let rev = try await DocumentHandlers.single(update, database, newEdits: newEdits, stats: context.node.stats)
        return DocumentHandlers.created(context, id: id, rev: rev)
    }

    static func reason(_ error: MultipartError) -> String {
        switch error {
        case .missingFinalBoundary: "Missing final multipart boundary"
        case .malformed(let why): "Malformed multipart request: \(why)"
        case .headersTooLarge: "Multipart part headers too large"
        }
    }

    /// `GET ?attachments=true` as `multipart/related`: the JSON (attachments to send
    /// marked `follows`), then one part per such attachment, stored bytes as they are.
    static func get(id: String, tree: RevisionTree?, _ revision: StoredRevision, _ database: Database,
                    options: DocumentOptions, etag: String) async throws -> HTTPResponse {
        let sending = AttachmentJSON.toSend(tree, revision, attsSince: options.attsSince)
        let json = RevisionJSON.render(id: id, tree: tree, revision, options: options,
                                           forms: followsForms(sending)).serialize()
        let boundary = MultipartWriter.randomBoundary()
        let length = MultipartWriter.length(boundary: boundary, jsonLength: json.count,
                                            attachments: sending.map(part))
        let headers: HTTPHeaders = ["Content-Type": "multipart/related; boundary=\"\(boundary)\"",
                                    "Content-Length": String(length), "ETag": etag]
        return HTTPResponse(status: 200, headers: headers, body: .stream { writer in
            var multipart = MultipartWriter(boundary: boundary, subtype: .related) { try await writer.write($0) }
            try await writeDocument(&multipart, json: json, attachments: sending, database)
            try await multipart.finish()
        })
    }

    static func followsForms(_ attachments: [StoredAttachment]) -> [String: AttachmentJSON.Form] {
        Dictionary(attachments.map { ($0.name, AttachmentJSON.Form.follows) }, uniquingKeysWith: { a, _ in a })
    }

    /// An attachment part as CouchDB sends it: still encoded when stored gzip'd.
    static func part(_ attachment: StoredAttachment) -> MultipartWriter.AttachmentPart {
        MultipartWriter.AttachmentPart(name: attachment.name, contentType: attachment.contentType,
                                       length: attachment.encodedLength, encoding: attachment.encoding)
    }

    /// The JSON part, then each attachment's stored bytes streamed from its blob.
    static func writeDocument(_ multipart: inout MultipartWriter, json: [UInt8], attachments: [StoredAttachment],
                              _ database: Database) async throws {
        try await multipart.writeJSONPart(json)
        for attachment in attachments {
            try await multipart.beginAttachmentPart(part(attachment))
            let download = try await database.openAttachment(attachment)
            defer { download.close() }
            while let piece = try await download.next() { try await multipart.writeBody(piece) }
            try await multipart.endPart()
        }
    }
}
