import SetteeDocuments
internal import FoundationEssentials
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `/{db}/{docid}/{attname}`: one attachment on its own
/// (API reference /{db}/{docid}/{attname}; chttpd_db.erl `db_attachment_req`).
/// Bytes stream both ways: an upload goes from the request body into a blob, a
/// download from the blob into the response, never whole in memory.
enum AttachmentHandlers {
    static func get(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        // A read checks no names: what cannot be stored is simply not found, as CouchDB answers.
        let (id, name) = try target(context, validating: false)
        try await UsersDatabaseReadRule.requireRead(id, context, database)
        let read = try await DocumentReader.read(database, id: id, rev: context.query["rev"])
        context.node.stats.recordReads(1)
        guard let attachment = read.revision.attachments.first(where: { $0.name == name }) else {
            throw CouchError.notFound("Document is missing attachment")
        }
        // CouchDB's ETag is the quoted base64 MD5, without the `md5-` prefix.
        let etag = "\"\(Data(attachment.digest.md5).base64EncodedString())\""
        if let notModified = EntityTag.notModified(context, etag) { return notModified }
        let sendEncoded = attachment.isGzipped && ByteRange.acceptsGzip(context.headers["Accept-Encoding"])
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "must-revalidate",
                                    "Content-Type": attachment.contentType,
                                    "Accept-Ranges": attachment.isGzipped ? "none" : "bytes",
                                    sandbox.name: sandbox.value]
        if sendEncoded { headers.add("Content-Encoding", "gzip") }
        // A range the attachment cannot satisfy is 416 however it is stored: CouchDB parses
        // `Range` against the length it is about to send (the gzipped length when it sends
        // gzip) before it looks at the encoding. Ranges are served only from identity-stored
        // bytes (`Enc == identity`); a gzipped attachment is sent whole.
        let sentLength = sendEncoded ? attachment.encodedLength : attachment.length
        let asked = try context.headers["Range"].flatMap { try ByteRange.parse($0, length: sentLength) }
        let ranges = attachment.isGzipped ? nil : asked
        if let ranges, ranges.count > 1 {
            let source = DamageReport(logger: context.logger, database: database.name, document: id, attachment: name)
            return multipartRanges(ranges, of: attachment, database, source)
        }
        let range = ranges?.first
        if let range { headers.add("Content-Range", ByteRange.contentRange(range, of: attachment.length)) }
        let length = range.map { $0.upperBound - $0.lowerBound }
            ?? (attachment.isGzipped && !sendEncoded ? attachment.length : attachment.encodedLength)
        headers.add("Content-Length", String(length))
        let decode = attachment.isGzipped && !sendEncoded
        let source = DamageReport(logger: context.logger, database: database.name, document: id, attachment: name)
        // Opened before the head goes out: a missing or damaged small blob, or a damaged
        // file under a range, is an error response rather than a 200 that breaks off.
        let download = try await source.noticing {
            try await database.openAttachment(attachment, range: range, decode: decode)
        }
        return HTTPResponse(status: range == nil ? 200 : 206, headers: headers, body: .stream { writer in
            try await stream(download, to: writer, source)
        })
    }

    /// What CouchDB 3.4.3 sends with every attachment (`[csp] attachments_header_value`,
    /// chttpd_db.erl `db_attachment_req`): whatever its type, an attachment is shown in a
    /// sandbox (`UserContentPolicy`).
    static let sandbox = UserContentPolicy.sandbox

    /// Several ranges: 206 with one `multipart/byteranges` part per range, in CouchDB's
    /// framing (chttpd_db.erl `send_ranges_multipart`: `--B`, then per range its
    /// headers, bytes and `CRLF--B`, then `--`), streamed chunked.
    private static func multipartRanges(_ ranges: [Range<Int64>], of attachment: StoredAttachment,
                                        _ database: Database, _ source: DamageReport) -> HTTPResponse {
        let boundary = UUIDs.random()
        let headers: HTTPHeaders = ["Content-Type": "multipart/byteranges; boundary=\"\(boundary)\"",
                                    sandbox.name: sandbox.value]
        return HTTPResponse(status: 206, headers: headers, body: .stream { writer in
            try await writer.write(Array("--\(boundary)".utf8))
            for range in ranges {
                try await writer.write(Array(("\r\nContent-Type: \(attachment.contentType)\r\n"
                    + "Content-Range: \(ByteRange.contentRange(range, of: attachment.length))\r\n\r\n").utf8))
                let download = try await source.noticing {
                    try await database.openAttachment(attachment, range: range, decode: false)
                }
                try await stream(download, to: writer, source)
                try await writer.write(Array("\r\n--\(boundary)".utf8))
            }
            try await writer.write(Array("--".utf8))
        })
    }

    /// Sends what `download` reads; a damaged blob ends the body early (the last piece
    /// is held until the digest matched), which the connection turns into a short body.
    private static func stream(_ download: AttachmentDownload, to writer: any ResponseBodyWriter,
                               _ source: DamageReport) async throws {
        defer { download.close() }
        try await source.noticing {
            while let piece = try await download.next() { try await writer.write(piece) }
        }
    }

    /// Adds or replaces one attachment: a child of `?rev=` (or `If-Match`) keeping the
    /// body and the other attachments; without a rev, a new document.
    static func put(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let (id, name) = try target(context)
        let contentType = context.headers["Content-Type"] ?? AttachmentParser.defaultContentType
        let base = try baseRevision(context, required: false)
        let (body, kept) = try await contents(database, id: id, rev: base, without: name)
        let stored = try await receive(context, database, name: name, contentType: contentType)
        let update = DocumentUpdate(id: id, body: body, baseRevision: base, attachments: [.new(stored)] + kept)
        let rev = try await DocumentHandlers.single(update, database, newEdits: true, stats: context.node.stats)
        return DocumentHandlers.created(context, id: id, rev: rev, attachment: name)
    }

    static func delete(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let (id, name) = try target(context)
        let base = try baseRevision(context, required: true)
        let (body, kept) = try await contents(database, id: id, rev: base, without: name)
        guard let rev = base, try await database.document(id: id, revisions: .revision(rev))?.revisions.first?
            .attachments.contains(where: { $0.name == name }) == true
        else { throw CouchError.notFound("Document is missing attachment") }
        let update = DocumentUpdate(id: id, body: body, baseRevision: rev, attachments: kept)
        let newRev = try await DocumentHandlers.single(update, database, newEdits: true, stats: context.node.stats)
        // CouchDB sends no ETag here, unlike a document's DELETE, and 200 whatever `w`
        // (chttpd_db:db_attachment_req/3 answers `{200, []}` for a DELETE, not 202).
        return JSONResponse.make(status: 200,
                                 ["ok": true, "id": .string(id), "rev": .string(newRev.description)])
    }

    /// The document id and attachment name. On a design document a name starting with
    /// `_` that no design handler routes (`_show`, `_rewrite`...) is read as an attachment
    /// no document has (CouchDB 3.4.3: 404 "Document is missing attachment"); written, it is
    /// 400 as elsewhere (chttpd_db.erl `validate_attachment_name`).
    static func target(_ context: RequestContext, validating: Bool = true) throws -> (id: String, name: String) {
        let id = context.parameters.docID ?? ""
        let name = context.parameters.attachment ?? ""
        if id.hasPrefix("_design/"), name.hasPrefix("_"), ["GET", "HEAD"].contains(context.request.method) {
            throw CouchError.notFound("Document is missing attachment")
        }
        guard validating else { return (id, name) }
        try DocumentParser.validate(id: id)
        try AttachmentParser.validate(name: name)
        return (id, name)
    }

    private static func baseRevision(_ context: RequestContext, required: Bool) throws -> RevisionID? {
        guard let text = try context.requestedRev else {
            if required { throw CouchError.conflict }
            return nil
        }
        return try DocumentParser.revision(.string(text))
    }

    /// The base revision's body and its attachments other than `name`, as stubs;
    /// `{}` and none for a new document. A rev the document lacks: 409.
    private static func contents(_ database: Database, id: String, rev: RevisionID?,
                                 without name: String) async throws -> ([UInt8], [AttachmentUpdate]) {
        guard let rev else { return (Array("{}".utf8), []) }
        // A rev the document does not have: 409 `not_found` "missing_rev", as CouchDB answers
        // after opening the document at that rev (chttpd_db:db_attachment_req/3); a stale one
        // it has is the write's ordinary conflict.
        guard let revision = try await database.document(id: id, revisions: .revision(rev))?.revisions.first,
              let body = revision.body
        else { throw CouchError(409, "not_found", "missing_rev") }
        let kept = revision.attachments.filter { $0.name != name }.map { AttachmentUpdate.stub(name: $0.name, digest: $0.digest) }
        return (body, kept)
    }

    /// Streams the request body into a blob; any throw (the client went away, a
    /// short body) aborts the upload so nothing is left behind.
    private static func receive(_ context: RequestContext, _ database: Database, name: String,
                                contentType: String) async throws -> StoredAttachment {
        let upload = try await database.makeAttachmentUpload(contentType: contentType)
        do {
            while let chunk = try await context.request.body.next() { try await upload.write(chunk) }
            let declared = context.request.body.declaredLength.map(Int64.init)
            return try await upload.finish(name: name, contentType: contentType, expectedLength: declared)
        } catch {
            await upload.abort()
            throw error
        }
    }
}
