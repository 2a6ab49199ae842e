import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeReplicator
import SetteeStore

/// One document of a `_bulk_get` request, looked up.
struct BulkGetItem {
    enum Outcome {
        /// The revisions found, in CouchDB's order.
        case found([(StoredDocument, StoredRevision)])
        /// The `error` object CouchDB answers for it (`not_found`, `illegal_docid`).
        case failed(JSONObject)
    }

    let id: JSONValue
    var options = DocumentOptions()
    let outcome: Outcome
}

/// `POST /{db}/_bulk_get` as `multipart/mixed`, for a client that accepts that and not
/// JSON (chttpd_db.erl `bulk_get_is_multipart`, `send_docs_multipart_bulk_get`, CouchDB
/// 3.4.3): one part per revision found, its attachments newer than the item's
/// `atts_since` following in a nested `multipart/related` part (with `X-Doc-Id` and
/// `X-Rev-Id` headers), else the revision's JSON; an item's error is an
/// `application/json; error="true"` part. Attachment bytes travel as stored, never
/// base64: one request brings a batch of documents with their attachments.
enum BulkGetMultipart {
    /// Whether `accept` asks for multipart and does not take JSON (no header takes JSON).
    static func isWanted(accept: String?) -> Bool {
        guard let accept else { return false }
        let types = accept.split(separator: ",").map { $0.prefix { $0 != ";" }.trimmingBlanks().lowercased() }
        let takesJSON = types.contains { ["application/json", "application/*", "*/*"].contains($0) }
        let takesMultipart = types.contains { ["multipart/mixed", "multipart/related", "multipart/*"].contains($0) }
        return takesMultipart && !takesJSON
    }

    static func response(_ items: [BulkGetItem], _ database: Database, strippingFor reader: UserContext?) -> HTTPResponse {
        let boundary = MultipartWriter.randomBoundary()
        let headers: HTTPHeaders = ["Content-Type": "multipart/mixed; boundary=\"\(boundary)\""]
        return HTTPResponse(status: 200, headers: headers, body: .stream { writer in
            let sink: MultipartWriter.Sink = { try await writer.write($0) }
            guard !items.isEmpty else { return }
            var mixed = MultipartWriter(boundary: boundary, subtype: .mixed, sink: sink)
            for item in items {
                switch item.outcome {
                case .failed(let error):
                    try await mixed.writePart(headers: [("Content-Type", "application/json; error=\"true\"")],
                                              body: JSONWriter.serialize(.object(error)))
                case .found(let found):
                    for (document, revision) in found {
                        try await writePart(document, revision, options: item.options, to: &mixed, sink: sink,
                                            database, strippingFor: reader)
                    }
                }
            }
            try await mixed.finish()
        })
    }

    /// A nested writer shares `sink`: the inner body is the outer part's body.
    private static func writePart(_ document: StoredDocument, _ revision: StoredRevision, options: DocumentOptions,
                                  to mixed: inout MultipartWriter, sink: @escaping MultipartWriter.Sink,
                                  _ database: Database, strippingFor reader: UserContext?) async throws {
        // CouchDB's options here: `[attachments, follows, att_encoding_info]`.
        var options = options
        options.attEncodingInfo = true
        let sending = AttachmentJSON.toSend(document.tree, revision, attsSince: options.attsSince)
        var json = RevisionJSON.render(document, revision, options: options,
                                       forms: MultipartDocumentHandler.followsForms(sending)).serialize()
        if let reader { json = ReplicatorReadRule.shown(json, to: reader) }
        guard !sending.isEmpty else { return try await mixed.writeJSONPart(json) }
        var related = MultipartWriter(subtype: .related, sink: sink)
        try await mixed.beginPart([("X-Doc-Id", document.id), ("X-Rev-Id", revision.rev.description),
                                   ("Content-Type", related.contentType)])
        try await MultipartDocumentHandler.writeDocument(&related, json: json, attachments: sending, database)
        try await related.finish()
        try await mixed.endPart()
    }
}
